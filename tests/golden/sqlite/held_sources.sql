SELECT COUNT(*) FROM records s WHERE s.tenant = :asof_tenant AND s.label = :source
  AND EXISTS (SELECT 1 FROM edges e INDEXED BY edges_in
    CROSS JOIN facts f INDEXED BY facts_id ON f.tenant = e.tenant AND f.id = e.src
    WHERE e.tenant = s.tenant AND e.type = :type AND e.dst = s.id
    AND e.recorded_at <= :asof_system AND (e.invalidated_at IS NULL OR :asof_system < e.invalidated_at) AND (e.gaps IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(e.gaps) g WHERE json_extract(g.value, '$[0]') <= :asof_system AND :asof_system < json_extract(g.value, '$[1]')))
    AND f.tenant = :asof_tenant
  AND NOT EXISTS (SELECT 1 FROM json_each(:asof_scope) t WHERE t.value NOT IN (SELECT value FROM json_each(f.scope)))
  AND f.available_at <= :asof_known
  AND (f.superseded_at IS NULL OR :asof_known < f.superseded_at OR :asof_system < f.superseded_recorded_at)
  AND (f.past IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(f.past) p WHERE json_extract(p.value, '$[1]') <= :asof_system AND :asof_system < json_extract(p.value, '$[2]') AND json_extract(p.value, '$[0]') <= :asof_known))
  AND f.recorded_at <= :asof_system AND (f.invalidated_at IS NULL OR :asof_system < f.invalidated_at) AND (f.gaps IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(f.gaps) g WHERE json_extract(g.value, '$[0]') <= :asof_system AND :asof_system < json_extract(g.value, '$[1]')))
  AND f.status IN (SELECT value FROM json_each(:asof_statuses))
  AND f.erased = 0
    AND f.id NOT IN (SELECT value FROM json_each(:gone)))
-- params
{
  "asof_known": 1556582400000000,
  "asof_scope": "[]",
  "asof_statuses": "[\"active\", \"candidate\", \"conflicted\"]",
  "asof_system": 1556582400000000,
  "asof_tenant": "acme",
  "gone": "[\"f9\"]",
  "source": "Source",
  "type": "SUPPORTED_BY"
}
