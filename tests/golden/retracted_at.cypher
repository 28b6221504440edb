MATCH (:Fact)-[r:SUPPORTED_BY]->(s:Source {tenant: $tenant, id: $source})
WHERE r.invalidated_at IS NOT NULL
RETURN max(r.invalidated_at) AS at
// params
{
  "source": "s1",
  "tenant": "acme"
}
