CALL () {
  CALL db.index.fulltext.queryNodes('vintage_fact_text', $text) YIELD node AS f, score
  WHERE f.tenant = $asof_tenant AND all(term IN $asof_scope WHERE term IN f.scope)
  WITH f, score, CASE
      WHEN NOT (all(term IN $asof_scope WHERE term IN f.scope)) THEN 'outside the scope'
      WHEN NOT (f.erased_at IS NULL) THEN 'erased'
      WHEN NOT (f.subject IN $asof_subjects) THEN 'another subject'
      WHEN NOT (f.recorded_at <= $asof_system AND (f.invalidated_at IS NULL OR $asof_system < f.invalidated_at) AND (f.gaps_from IS NULL OR none(i IN range(0, size(f.gaps_from) - 1) WHERE f.gaps_from[i] <= $asof_system AND $asof_system < f.gaps_to[i]))) THEN 'not held at the system instant'
      WHEN NOT (f.available_at <= $asof_known) THEN 'not yet public at the cutoff'
      WHEN NOT ((f.superseded_at IS NULL OR $asof_known < f.superseded_at OR $asof_system < f.superseded_recorded_at) AND (f.past_superseded_at IS NULL OR none(i IN range(0, size(f.past_superseded_at) - 1) WHERE f.past_superseded_from[i] <= $asof_system AND $asof_system < f.past_superseded_to[i] AND f.past_superseded_at[i] <= $asof_known))) THEN 'superseded by the cutoff'
      WHEN NOT (true) THEN 'outside the valid time'
      WHEN NOT (true) THEN 'expired'
      WHEN NOT (f.status IN $asof_statuses) THEN 'status not admitted'
      ELSE null END AS reason
  WITH reason, count(*) AS n ORDER BY reason
  RETURN sum(n) AS matched,
         collect(CASE WHEN reason IS NOT NULL THEN [reason, n] END) AS excluded
}
CALL () {
  CALL db.index.fulltext.queryNodes('vintage_fact_text', $text) YIELD node AS f, score
  WHERE f.tenant = $asof_tenant AND all(term IN $asof_scope WHERE term IN f.scope)
  WITH f, score, CASE
      WHEN NOT (all(term IN $asof_scope WHERE term IN f.scope)) THEN 'outside the scope'
      WHEN NOT (f.erased_at IS NULL) THEN 'erased'
      WHEN NOT (f.subject IN $asof_subjects) THEN 'another subject'
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
  MATCH (f:Fact)
  USING INDEX SEEK f:Fact(tenant, subject, predicate)
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
    AND f.subject IN $asof_subjects
    AND f.predicate IS NOT NULL
    AND f.search_terms IS NOT NULL
  RETURN count(f) AS legal
}
RETURN keyword, [] AS exact, matched, excluded, legal, [] AS semantic
// params
{
  "asof_known": "2019-04-30 00:00:00+00:00",
  "asof_scope": [],
  "asof_statuses": [
    "active"
  ],
  "asof_subjects": [
    "GOOGL"
  ],
  "asof_system": "2019-04-30 00:00:00+00:00",
  "asof_tenant": "acme",
  "per_leg": 5,
  "text": "+\"t.822b33ad87c148a0\"^0 +\"b.1\""
}
