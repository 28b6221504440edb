UNWIND $frontier AS fid
MATCH (s:Fact {tenant: $tenant, id: fid})<-[u:USED]-(d:Derivation)
      -[g:GENERATED]->(f:Fact)
USING INDEX SEEK s:Fact(tenant, id)
WHERE d.tenant = $tenant AND f.tenant = $tenant
  AND u.recorded_at <= $at
  AND (u.invalidated_at IS NULL OR $at < u.invalidated_at)
  AND (u.gaps_from IS NULL OR none(i IN range(0, size(u.gaps_from) - 1) WHERE u.gaps_from[i] <= $at AND $at < u.gaps_to[i]))
  AND g.recorded_at <= $at
  AND (g.invalidated_at IS NULL OR $at < g.invalidated_at)
  AND (g.gaps_from IS NULL OR none(i IN range(0, size(g.gaps_from) - 1) WHERE g.gaps_from[i] <= $at AND $at < g.gaps_to[i]))
WITH DISTINCT f
CALL (f) {
  MATCH (j:Derivation)-[h:GENERATED]->(f)
  WHERE j.tenant = $tenant AND h.recorded_at <= $at
  AND (h.invalidated_at IS NULL OR $at < h.invalidated_at)
  AND (h.gaps_from IS NULL OR none(i IN range(0, size(h.gaps_from) - 1) WHERE h.gaps_from[i] <= $at AND $at < h.gaps_to[i]))
  OPTIONAL MATCH (j)-[v:USED]->(x:Fact)
  WHERE v.recorded_at <= $at
  AND (v.invalidated_at IS NULL OR $at < v.invalidated_at)
  AND (v.gaps_from IS NULL OR none(i IN range(0, size(v.gaps_from) - 1) WHERE v.gaps_from[i] <= $at AND $at < v.gaps_to[i]))
  WITH j, collect(DISTINCT x) AS xs
  RETURN collect([j.id, [x IN xs | [x.id, x.superseded_at.epochSeconds * 1000000 + x.superseded_at.microsecond,
                                    x.invalidated_at.epochSeconds * 1000000 + x.invalidated_at.microsecond]]]) AS justs
}
RETURN f.id AS id, f.subject AS subject, f.predicate AS predicate, f.value AS value,
       f.unit AS unit, f.ciphertext IS NOT NULL AS sealed,
       f.superseded_at.epochSeconds * 1000000 + f.superseded_at.microsecond AS knowledge, f.invalidated_at.epochSeconds * 1000000 + f.invalidated_at.microsecond AS system,
       justs
// params
{
  "at": "2019-04-30 00:00:00+00:00",
  "frontier": [
    "x",
    "y"
  ],
  "tenant": "acme"
}
