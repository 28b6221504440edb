MATCH (f:Fact)-[:SUPPORTED_BY]->(s:Source {tenant: $tenant, id: $source})
RETURN DISTINCT f.id AS id
ORDER BY id
// params
{
  "source": "s1",
  "tenant": "acme"
}
