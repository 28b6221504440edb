MATCH (e:Event)
WHERE e.tenant <> $settings
RETURN DISTINCT e.tenant AS tenant
ORDER BY tenant
// params
{
  "settings": "vintage store settings"
}
