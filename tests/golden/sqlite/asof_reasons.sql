CASE
  WHEN (NOT EXISTS (SELECT 1 FROM json_each(:asof_scope) t WHERE t.value NOT IN (SELECT value FROM json_each(f.scope)))) IS NOT 1 THEN 'outside the scope'
  WHEN (f.erased = 0) IS NOT 1 THEN 'erased'
  WHEN (f.subject IN (SELECT value FROM json_each(:asof_subjects))) IS NOT 1 THEN 'another subject'
  WHEN (f.recorded_at <= :asof_system AND (f.invalidated_at IS NULL OR :asof_system < f.invalidated_at) AND (f.gaps IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(f.gaps) g WHERE json_extract(g.value, '$[0]') <= :asof_system AND :asof_system < json_extract(g.value, '$[1]')))) IS NOT 1 THEN 'not held at the system instant'
  WHEN (f.available_at <= :asof_known) IS NOT 1 THEN 'not yet public at the cutoff'
  WHEN ((f.superseded_at IS NULL OR :asof_known < f.superseded_at OR :asof_system < f.superseded_recorded_at) AND (f.past IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(f.past) p WHERE json_extract(p.value, '$[1]') <= :asof_system AND :asof_system < json_extract(p.value, '$[2]') AND json_extract(p.value, '$[0]') <= :asof_known))) IS NOT 1 THEN 'superseded by the cutoff'
  WHEN f.expires_at IS NOT NULL THEN '?'
  WHEN (f.valid_from <= :asof_valid_at AND (f.holds_until IS NULL OR :asof_valid_at < f.holds_until)) IS NOT 1 THEN 'outside the valid time'
  WHEN (f.status IN (SELECT value FROM json_each(:asof_statuses))) IS NOT 1 THEN 'status not admitted'
  WHEN (json_extract(f.body, '$.authority') >= :asof_min_authority) IS NOT 1 THEN 'below the required authority'
  ELSE NULL END
-- params
{
  "asof_known": 1556582400000000,
  "asof_min_authority": 3,
  "asof_scope": "[]",
  "asof_statuses": "[\"active\"]",
  "asof_subjects": "[\"GOOGL\"]",
  "asof_system": 1556582400000000,
  "asof_tenant": "acme",
  "asof_valid_at": 1519862400000000
}
