MATCH (a)-[r:USED|GENERATED]-(b)
WHERE elementId(a) IN $elements AND b.tenant = $tenant AND (type(r) = 'GENERATED') = (startNode(r) = a) AND r.recorded_at <= $at AND (r.invalidated_at IS NULL OR $at < r.invalidated_at) AND (r.gaps_from IS NULL OR none(i IN range(0, size(r.gaps_from) - 1) WHERE r.gaps_from[i] <= $at AND $at < r.gaps_to[i]))
RETURN DISTINCT startNode(r).id AS start, type(r) AS type, endNode(r).id AS end,
       properties(r) AS props
// params
{
  "at": "2019-04-30 00:00:00+00:00",
  "elements": [
    "4:x:1"
  ],
  "tenant": "acme"
}
