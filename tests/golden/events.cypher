MATCH (e:Event)
WHERE e.tenant = $tenant
RETURN properties(e) AS e
ORDER BY e.at, e.id
// params
{
  "tenant": "acme"
}
