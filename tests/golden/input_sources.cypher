MATCH (f:Fact)
USING INDEX SEEK f:Fact(tenant, id)
WHERE f.tenant = $tenant AND f.id IN $ids
MATCH (f) ((a)<-[g:GENERATED]-(d:Derivation)-[u:USED]->(b:Fact)
  WHERE d.tenant = $tenant AND g.recorded_at <= $at
  AND (g.invalidated_at IS NULL OR $at < g.invalidated_at)
  AND (g.gaps_from IS NULL OR none(i IN range(0, size(g.gaps_from) - 1) WHERE g.gaps_from[i] <= $at AND $at < g.gaps_to[i]))
  AND u.recorded_at <= $at
  AND (u.invalidated_at IS NULL OR $at < u.invalidated_at)
  AND (u.gaps_from IS NULL OR none(i IN range(0, size(u.gaps_from) - 1) WHERE u.gaps_from[i] <= $at AND $at < u.gaps_to[i]))){1,128} (p)
WITH DISTINCT f.id AS item, p
MATCH (p)-[r:SUPPORTED_BY]->(s:Source)
WHERE r.available_at <= $known_at AND r.recorded_at <= $at
  AND (r.invalidated_at IS NULL OR $at < r.invalidated_at)
  AND (r.gaps_from IS NULL OR none(i IN range(0, size(r.gaps_from) - 1) WHERE r.gaps_from[i] <= $at AND $at < r.gaps_to[i]))
WITH DISTINCT item, s
ORDER BY item, s.available_at, s.id
RETURN item, collect(s {.*, available_at: toString(s.available_at), recorded_at: toString(s.recorded_at)}) AS sources
ORDER BY item
// params
{
  "at": "2019-04-30 00:00:00+00:00",
  "ids": [
    "f1",
    "f2"
  ],
  "known_at": "2019-04-30 00:00:00+00:00",
  "tenant": "acme"
}
