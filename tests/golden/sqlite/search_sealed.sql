SELECT fact_id, model, sealed FROM entries WHERE tenant = :tenant AND sealed IS NOT NULL
-- params
{
  "tenant": "acme"
}
