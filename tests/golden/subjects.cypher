MATCH (s:Subject)
USING INDEX SEEK s:Subject(tenant, id)
WHERE s.tenant = $tenant AND s.id IS NOT NULL
  AND (s.id IN $names OR any(i IN s.identifiers WHERE i IN $names))
RETURN s.id AS id, s.kind AS kind, s.name AS name, coalesce(s.identifiers, []) AS identifiers
ORDER BY id
// params
{
  "names": [
    "GOOGL",
    "cik:0001652044",
    "ticker:GOOGL"
  ],
  "tenant": "acme"
}
