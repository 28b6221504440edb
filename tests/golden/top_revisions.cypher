MATCH (f:Fact)
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
