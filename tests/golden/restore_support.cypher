MATCH (f:Fact)-[r:SUPPORTED_BY]->(s:Source {tenant: $tenant, id: $source})
WHERE r.invalidated_at = $retracted
SET r.gaps_from = coalesce(r.gaps_from, []) + [r.invalidated_at],
    r.gaps_to = coalesce(r.gaps_to, []) + [$at],
    r.invalidated_at = null
RETURN f.id AS id
ORDER BY id
// params
{
  "at": "2019-04-30 00:00:00+00:00",
  "retracted": "2019-04-30 00:00:00+00:00",
  "source": "s1",
  "tenant": "acme"
}
