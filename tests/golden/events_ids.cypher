MATCH (e:Event)
USING INDEX SEEK e:Event(tenant, id)
WHERE e.tenant = $tenant AND e.id IN $ids AND coalesce(e.action IN $actions, true)
RETURN properties(e) AS e
ORDER BY e.at, e.id
// params
{
  "actions": [
    "record"
  ],
  "ids": [
    "e1",
    "e2"
  ],
  "tenant": "acme"
}
