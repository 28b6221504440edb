CALL vintage.rank_columns($tenant, $token) YIELD entries RETURN entries
// params
{
  "tenant": "acme",
  "token": "t.822b33ad87c148a0"
}
