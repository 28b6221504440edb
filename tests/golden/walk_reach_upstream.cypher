MATCH (s:Fact|Source|Derivation)
WHERE s.tenant = $tenant AND s.id IN $ids
WITH collect(s) AS starts
UNWIND starts AS s
MATCH p = (s) ((a)-[r:SUPPORTED_BY|USED|GENERATED|SUPERSEDES]-(b)
  WHERE b.tenant = $tenant AND (type(r) = 'GENERATED') = (startNode(r) = b) AND r.recorded_at <= $at AND (r.invalidated_at IS NULL OR $at < r.invalidated_at) AND (r.gaps_from IS NULL OR none(i IN range(0, size(r.gaps_from) - 1) WHERE r.gaps_from[i] <= $at AND $at < r.gaps_to[i]))){1,8} (x)
RETURN elementId(x) AS element, x.id AS id, head(labels(x)) AS label,
       min(length(p)) AS depth, x IN starts AS start
ORDER BY depth, label, id
// params
{
  "at": "2019-04-30 00:00:00+00:00",
  "ids": [
    "a"
  ],
  "tenant": "acme"
}
