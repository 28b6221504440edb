CALL vintage.search_write($tenant)
// params
{
  "tenant": "acme"
}
