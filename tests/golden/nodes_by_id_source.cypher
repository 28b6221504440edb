MATCH (n:Source)
WHERE n.tenant = $tenant AND n.id IN $ids
RETURN n {.*, available_at: toString(n.available_at), recorded_at: toString(n.recorded_at)} AS n
// params
{
  "ids": [
    "s"
  ],
  "tenant": "acme"
}
