CALL () {
  CALL db.index.fulltext.queryNodes('vintage_fact_text', $text) YIELD node AS f, score
  WHERE f.tenant = $asof_tenant AND all(term IN $asof_scope WHERE term IN f.scope)
  WITH f, score, CASE
      WHEN NOT (all(term IN $asof_scope WHERE term IN f.scope)) THEN 'outside the scope'
      WHEN NOT (f.erased_at IS NULL) THEN 'erased'
      WHEN NOT (f.kind IN $asof_kinds) THEN 'another kind'
      WHEN NOT (f.recorded_at <= $asof_system AND (f.invalidated_at IS NULL OR $asof_system < f.invalidated_at) AND (f.gaps_from IS NULL OR none(i IN range(0, size(f.gaps_from) - 1) WHERE f.gaps_from[i] <= $asof_system AND $asof_system < f.gaps_to[i]))) THEN 'not held at the system instant'
      WHEN NOT (f.available_at <= $asof_known) THEN 'not yet public at the cutoff'
      WHEN NOT ((f.superseded_at IS NULL OR $asof_known < f.superseded_at OR $asof_system < f.superseded_recorded_at) AND (f.past_superseded_at IS NULL OR none(i IN range(0, size(f.past_superseded_at) - 1) WHERE f.past_superseded_from[i] <= $asof_system AND $asof_system < f.past_superseded_to[i] AND f.past_superseded_at[i] <= $asof_known))) THEN 'superseded by the cutoff'
      WHEN NOT (true) THEN 'outside the valid time'
      WHEN NOT (true) THEN 'expired'
      WHEN NOT (f.status IN $asof_statuses) THEN 'status not admitted'
      ELSE null END AS reason
  WITH f, score WHERE reason IS NULL
  WITH f.id AS id, score ORDER BY score DESC, id LIMIT $per_leg
  RETURN collect([id, score]) AS keyword
}
CALL () {
  CALL db.index.fulltext.queryNodes('vintage_fact_text', $identified) YIELD node AS f, score
  WHERE f.tenant = $asof_tenant AND all(term IN $asof_scope WHERE term IN f.scope)
  WITH f, score, CASE
      WHEN NOT (all(term IN $asof_scope WHERE term IN f.scope)) THEN 'outside the scope'
      WHEN NOT (f.erased_at IS NULL) THEN 'erased'
      WHEN NOT (f.kind IN $asof_kinds) THEN 'another kind'
      WHEN NOT (f.recorded_at <= $asof_system AND (f.invalidated_at IS NULL OR $asof_system < f.invalidated_at) AND (f.gaps_from IS NULL OR none(i IN range(0, size(f.gaps_from) - 1) WHERE f.gaps_from[i] <= $asof_system AND $asof_system < f.gaps_to[i]))) THEN 'not held at the system instant'
      WHEN NOT (f.available_at <= $asof_known) THEN 'not yet public at the cutoff'
      WHEN NOT ((f.superseded_at IS NULL OR $asof_known < f.superseded_at OR $asof_system < f.superseded_recorded_at) AND (f.past_superseded_at IS NULL OR none(i IN range(0, size(f.past_superseded_at) - 1) WHERE f.past_superseded_from[i] <= $asof_system AND $asof_system < f.past_superseded_to[i] AND f.past_superseded_at[i] <= $asof_known))) THEN 'superseded by the cutoff'
      WHEN NOT (true) THEN 'outside the valid time'
      WHEN NOT (true) THEN 'expired'
      WHEN NOT (f.status IN $asof_statuses) THEN 'status not admitted'
      ELSE null END AS reason
  WITH f WHERE reason IS NULL
  WITH f.id AS id,
       size([i IN $identifiers WHERE (f.search_terms + ' ') CONTAINS (' ' + i + ' ')]) AS exact
  WITH id, exact WHERE exact > 0
  WITH id, exact ORDER BY exact DESC, id LIMIT $per_leg
  RETURN collect([id, exact]) AS exact
}
CALL () {
  CALL db.index.fulltext.queryNodes('vintage_fact_text', $legal) YIELD node AS f
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
    AND f.kind IN $asof_kinds
    AND f.embedding_model = $model
  WITH f.id AS id, vector.similarity.cosine(f.embedding, $vector) AS score
  ORDER BY score DESC, id LIMIT $per_leg
  RETURN collect([id, 2 * score - 1]) AS semantic
}
RETURN keyword, exact, 0 AS matched, [] AS excluded, 0 AS legal, semantic
// params
{
  "asof_kinds": [
    "preference",
    "experience"
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
  "identified": "+\"t.822b33ad87c148a0\"^0 +\"s.f4f27c0c2d8921bf\"^0 +\"b.2\"",
  "identifiers": [
    "b.2"
  ],
  "legal": "+\"t.822b33ad87c148a0\"^0 +\"s.f4f27c0c2d8921bf\"^0 +(\"k.preference\" \"k.experience\")^0",
  "model": "minilm",
  "per_leg": 10,
  "text": "+\"t.822b33ad87c148a0\"^0 +\"s.f4f27c0c2d8921bf\"^0 +(\"b.1\" \"b.2\")",
  "vector": [
    0.6,
    0.8
  ]
}
