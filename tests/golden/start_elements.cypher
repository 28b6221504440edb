MATCH (s:Fact|Source|Derivation)
WHERE s.tenant = $tenant AND s.id IN $ids
RETURN elementId(s) AS element
// params
{
  "ids": [
    "a"
  ],
  "tenant": "acme"
}
