MATCH (e:Event)
RETURN DISTINCT e.tenant AS tenant
ORDER BY tenant
// params
{}
