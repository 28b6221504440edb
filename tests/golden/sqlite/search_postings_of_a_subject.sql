SELECT e.fact_id, p.term, p.tf, e.length, CASE WHEN (f.tenant = :asof_tenant
  AND NOT EXISTS (SELECT 1 FROM json_each(:asof_scope) t WHERE t.value NOT IN (SELECT value FROM json_each(f.scope)))
  AND f.available_at <= :asof_known
  AND (f.superseded_at IS NULL OR :asof_known < f.superseded_at OR :asof_system < f.superseded_recorded_at)
  AND (f.past IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(f.past) p WHERE json_extract(p.value, '$[1]') <= :asof_system AND :asof_system < json_extract(p.value, '$[2]') AND json_extract(p.value, '$[0]') <= :asof_known))
  AND f.recorded_at <= :asof_system AND (f.invalidated_at IS NULL OR :asof_system < f.invalidated_at) AND (f.gaps IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(f.gaps) g WHERE json_extract(g.value, '$[0]') <= :asof_system AND :asof_system < json_extract(g.value, '$[1]')))
  AND f.status IN (SELECT value FROM json_each(:asof_statuses))
  AND f.erased = 0
  AND f.subject IN (SELECT value FROM json_each(:asof_subjects))) IS 1 THEN NULL
  WHEN (NOT EXISTS (SELECT 1 FROM json_each(:scope_terms) t WHERE t.value NOT IN (SELECT value FROM json_each(f.scope)))) IS 1 THEN CASE
  WHEN (NOT EXISTS (SELECT 1 FROM json_each(:asof_scope) t WHERE t.value NOT IN (SELECT value FROM json_each(f.scope)))) IS NOT 1 THEN 'outside the scope'
  WHEN (f.erased = 0) IS NOT 1 THEN 'erased'
  WHEN (f.subject IN (SELECT value FROM json_each(:asof_subjects))) IS NOT 1 THEN 'another subject'
  WHEN (f.recorded_at <= :asof_system AND (f.invalidated_at IS NULL OR :asof_system < f.invalidated_at) AND (f.gaps IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(f.gaps) g WHERE json_extract(g.value, '$[0]') <= :asof_system AND :asof_system < json_extract(g.value, '$[1]')))) IS NOT 1 THEN 'not held at the system instant'
  WHEN (f.available_at <= :asof_known) IS NOT 1 THEN 'not yet public at the cutoff'
  WHEN ((f.superseded_at IS NULL OR :asof_known < f.superseded_at OR :asof_system < f.superseded_recorded_at) AND (f.past IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(f.past) p WHERE json_extract(p.value, '$[1]') <= :asof_system AND :asof_system < json_extract(p.value, '$[2]') AND json_extract(p.value, '$[0]') <= :asof_known))) IS NOT 1 THEN 'superseded by the cutoff'
  WHEN f.expires_at IS NOT NULL THEN '?'
  WHEN (f.status IN (SELECT value FROM json_each(:asof_statuses))) IS NOT 1 THEN 'status not admitted'
  ELSE NULL END
  ELSE '-' END
FROM postings p JOIN entries e ON e.rowid = p.entry JOIN facts f ON f.tenant = e.tenant AND f.id = e.fact_id
WHERE p.tenant = :asof_tenant AND p.term IN (SELECT value FROM json_each(:terms))
  AND p.subject IN (SELECT value FROM json_each(:asof_subjects))
-- params
{
  "asof_known": 1556582400000000,
  "asof_scope": "[]",
  "asof_statuses": "[\"active\"]",
  "asof_subjects": "[\"GOOGL\"]",
  "asof_system": 1556582400000000,
  "asof_tenant": "acme",
  "scope_terms": "[]",
  "terms": "[\"oper\", \"incom\"]"
}
