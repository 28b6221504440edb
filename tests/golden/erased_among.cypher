MATCH (f:Fact)
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
