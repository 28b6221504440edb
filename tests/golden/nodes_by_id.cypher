MATCH (n:Fact)
WHERE n.tenant = $tenant AND n.id IN $ids
RETURN properties(n) AS n
// params
{
  "ids": [
    "a"
  ],
  "tenant": "acme"
}
