MATCH (n:Source)
USING INDEX SEEK n:Source(tenant, id)
WHERE n.tenant = $tenant AND n.id IN $ids
RETURN n {.*, available_at: toString(n.available_at), recorded_at: toString(n.recorded_at)} AS n
// params
{
  "ids": [
    "s"
  ],
  "tenant": "acme"
}
