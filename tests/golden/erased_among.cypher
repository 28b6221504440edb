MATCH (f:Fact)
USING INDEX SEEK f:Fact(tenant, id)
WHERE f.tenant = $tenant AND f.id IN $ids AND f.erased_at IS NOT NULL
RETURN f.id AS id, toString(f.erased_at) AS at
// params
{
  "ids": [
    "f",
    "g"
  ],
  "tenant": "acme"
}
