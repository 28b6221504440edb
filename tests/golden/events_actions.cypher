MATCH (e:Event)
USING INDEX SEEK e:Event(tenant, action)
WHERE e.tenant = $tenant AND e.action IN $actions
RETURN properties(e) AS e
ORDER BY e.at, e.id
// params
{
  "actions": [
    "erase",
    "rollback"
  ],
  "tenant": "acme"
}
