MATCH (f:Fact)
USING INDEX SEEK f:Fact(tenant, key)
WHERE f.tenant = $tenant AND f.key IN $keys
RETURN f.key AS key, max(f.revision) AS revision
// params
{
  "keys": [
    "k1",
    "k2"
  ],
  "tenant": "acme"
}
