SELECT COUNT(DISTINCT p.entry) FROM postings p
WHERE p.tenant = :asof_tenant AND p.term IN (SELECT value FROM json_each(:terms))
  AND p.subject NOT IN (SELECT value FROM json_each(:asof_subjects))
  AND (NOT EXISTS (SELECT 1 FROM json_each(:scope_terms) t WHERE t.value NOT IN (SELECT value FROM json_each(p.scope))))
-- params
{
  "asof_subjects": "[\"GOOGL\"]",
  "asof_tenant": "acme",
  "scope_terms": "[\"user=42\"]",
  "terms": "[\"oper\", \"incom\"]"
}
