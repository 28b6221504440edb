CALL () {
CALL () {
  MATCH (f:Fact)
  USING INDEX SEEK f:Fact(tenant, id)
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
    AND f.id IN $asof_ids
    AND f.search_terms IS NOT NULL
  RETURN count(f) AS legal
}
CALL () {
  MATCH (f:Fact)
  USING INDEX SEEK f:Fact(tenant, id)
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
    AND f.id IN $asof_ids
    AND f.search_terms IS NOT NULL
    AND f.embedding_model = $model
  WITH f.id AS id, vector.similarity.cosine(f.embedding, $vector) AS score
  ORDER BY score DESC, id LIMIT $per_leg
  RETURN collect([id, 2 * score - 1]) AS semantic
}
RETURN [] AS keyword, [] AS exact, 0 AS matched, [] AS excluded, legal, semantic
}
CALL () {
  CALL () {
  MATCH (f:Unindexed)
  USING INDEX SEEK f:Unindexed(tenant, id)
  WHERE f.tenant = $pending_tenant AND f.id > $pending_after AND f.erased_at IS NULL
  RETURN f ORDER BY f.id LIMIT $pending_limit
  UNION
  MATCH (f:Fact)
  USING INDEX SEEK f:Fact(tenant, embedding_model)
  WHERE f.tenant = $pending_tenant AND f.embedding_model < $pending_model AND f.id > $pending_after AND f.erased_at IS NULL
  RETURN f ORDER BY f.id LIMIT $pending_limit
  UNION
  MATCH (f:Fact)
  USING INDEX SEEK f:Fact(tenant, embedding_model)
  WHERE f.tenant = $pending_tenant AND f.embedding_model > $pending_model AND f.id > $pending_after AND f.erased_at IS NULL
  RETURN f ORDER BY f.id LIMIT $pending_limit
  }
  RETURN count(f) > 0 AS pending
}
RETURN *
// params
{
  "asof_ids": [
    "a",
    "b"
  ],
  "asof_known": "2019-04-30 00:00:00+00:00",
  "asof_scope": [
    "user=42"
  ],
  "asof_statuses": [
    "active"
  ],
  "asof_system": "2019-04-30 00:00:00+00:00",
  "asof_tenant": "acme",
  "model": "minilm",
  "pending_after": "",
  "pending_limit": 1,
  "pending_model": "minilm",
  "pending_tenant": "acme",
  "per_leg": 3,
  "vector": [
    1.0,
    0.0
  ]
}
