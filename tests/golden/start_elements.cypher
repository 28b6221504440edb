MATCH (s)
WHERE s.tenant = $tenant AND s.id IN $ids AND (s:Fact OR s:Source OR s:Derivation)
RETURN elementId(s) AS element
// params
{
  "ids": [
    "a"
  ],
  "tenant": "acme"
}
