MATCH (e:Event)
USING INDEX SEEK e:Event(tenant, at)
WHERE e.tenant = $tenant AND e.at IS NOT NULL
RETURN properties(e) AS e
ORDER BY e.at, e.id
// params
{
  "actions": null,
  "tenant": "acme"
}
