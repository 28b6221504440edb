MATCH (d:Derivation)-[g:GENERATED]->(f:Fact)
USING INDEX SEEK f:Fact(tenant, id)
WHERE f.tenant = $tenant AND f.id IN $ids AND d.tenant = $tenant
  AND g.recorded_at <= $at
  AND (g.invalidated_at IS NULL OR $at < g.invalidated_at)
  AND (g.gaps_from IS NULL OR none(i IN range(0, size(g.gaps_from) - 1) WHERE g.gaps_from[i] <= $at AND $at < g.gaps_to[i]))
OPTIONAL MATCH (d)-[u:USED]->(i:Fact)
WHERE u.recorded_at <= $at
  AND (u.invalidated_at IS NULL OR $at < u.invalidated_at)
  AND (u.gaps_from IS NULL OR none(i IN range(0, size(u.gaps_from) - 1) WHERE u.gaps_from[i] <= $at AND $at < u.gaps_to[i]))
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
