MATCH (n:Fact)
WHERE n.tenant = $tenant AND n.id IS NOT NULL
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
// params
{
  "tenant": "acme"
}
