MATCH (f:Fact)
WHERE f.tenant = $asof_tenant
  AND all(term IN $asof_scope WHERE term IN f.scope)
  AND f.available_at <= $asof_known
  AND (f.superseded_at IS NULL OR $asof_known < f.superseded_at OR $asof_system < f.superseded_recorded_at)
  AND (f.past_superseded_at IS NULL OR none(i IN range(0, size(f.past_superseded_at) - 1) WHERE f.past_superseded_from[i] <= $asof_system AND $asof_system < f.past_superseded_to[i] AND f.past_superseded_at[i] <= $asof_known))
  AND f.recorded_at <= $asof_system
  AND (f.invalidated_at IS NULL OR $asof_system < f.invalidated_at)
  AND (f.gaps_from IS NULL OR none(i IN range(0, size(f.gaps_from) - 1) WHERE f.gaps_from[i] <= $asof_system AND $asof_system < f.gaps_to[i]))
  AND f.status IN $asof_statuses
  AND f.erased_at IS NULL
  AND f.ciphertext IS NOT NULL
RETURN collect(f.id) AS ids
// params
{
  "asof_known": "2019-04-30 00:00:00+00:00",
  "asof_scope": [],
  "asof_statuses": [
    "active",
    "candidate",
    "conflicted"
  ],
  "asof_system": "2019-04-30 00:00:00+00:00",
  "asof_tenant": "acme"
}
