MATCH (f:Fact)
WHERE f.tenant = $tenant AND f.key = $key
RETURN properties(f) AS f
ORDER BY f.revision, f.recorded_at
// params
{
  "key": "k1",
  "tenant": "acme"
}
