SELECT 1 WHERE (SELECT COUNT(*) FROM facts INDEXED BY facts_live WHERE tenant = :tenant AND erased = 0)
  > (SELECT COUNT(*) FROM entries INDEXED BY entries_model WHERE tenant = :tenant AND model = :model)
-- params
{
  "model": "model",
  "tenant": "acme"
}
