MATCH (n:Fact)
WHERE n.tenant = $tenant AND n.id IN $ids
RETURN n.id AS id
// params
{
  "ids": [
    "a",
    "b"
  ],
  "tenant": "acme"
}
