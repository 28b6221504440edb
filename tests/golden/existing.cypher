MATCH (n:Fact)
USING INDEX SEEK n:Fact(tenant, id)
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
