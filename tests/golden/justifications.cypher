MATCH (d:Derivation)-[g:GENERATED]->(f:Fact)
WHERE f.tenant = $tenant AND f.id IN $ids AND d.tenant = $tenant
  AND g.recorded_at <= $at AND (g.invalidated_at IS NULL OR $at < g.invalidated_at)
OPTIONAL MATCH (d)-[u:USED]->(i:Fact)
WHERE u.recorded_at <= $at AND (u.invalidated_at IS NULL OR $at < u.invalidated_at)
RETURN f.id AS output, properties(d) AS derivation,
       collect([i.id, u.role]) AS inputs
ORDER BY output, derivation.id
// params
{
  "at": "2019-04-30 00:00:00+00:00",
  "ids": [
    "f1"
  ],
  "tenant": "acme"
}
