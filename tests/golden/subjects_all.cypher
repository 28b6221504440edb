MATCH (s:Subject)
USING INDEX SEEK s:Subject(tenant, id)
WHERE s.tenant = $tenant AND s.id IS NOT NULL
RETURN s.id AS id, s.kind AS kind, s.name AS name, coalesce(s.identifiers, []) AS identifiers
ORDER BY id
// params
{
  "tenant": "acme"
}
