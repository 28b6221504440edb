SELECT DISTINCT tenant FROM records INDEXED BY records_events
WHERE label = :label AND tenant != :settings ORDER BY tenant
-- params
{
  "label": "Event",
  "settings": "vintage store settings"
}
