MATCH (f:Fact)-[r:SUPPORTED_BY]->(s:Source {tenant: $tenant, id: $source})
WHERE r.invalidated_at IS NULL
SET r.invalidated_at = $at
WITH DISTINCT f ORDER BY f.id
SET f._vintage_lock = true REMOVE f._vintage_lock
WITH f
WHERE NOT EXISTS { MATCH (f)-[live:SUPPORTED_BY]->() WHERE live.invalidated_at IS NULL }
RETURN f.id AS id
ORDER BY id
// params
{
  "at": "2019-04-30 00:00:00+00:00",
  "source": "s1",
  "tenant": "acme"
}
