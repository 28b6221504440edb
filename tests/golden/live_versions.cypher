MATCH (f:Fact)
WHERE f.tenant = $tenant AND f.key IN $keys AND f.invalidated_at IS NULL
RETURN properties(f) AS f
ORDER BY f.key, f.revision
// params
{
  "keys": [
    "k1"
  ],
  "tenant": "acme"
}
