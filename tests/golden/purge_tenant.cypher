CALL () {
  MATCH (n:Subject) WHERE n.tenant = $tenant RETURN n
  UNION
  MATCH (n:Source) WHERE n.tenant = $tenant RETURN n
  UNION
  MATCH (n:Fact) WHERE n.tenant = $tenant RETURN n
  UNION
  MATCH (n:Derivation) WHERE n.tenant = $tenant RETURN n
  UNION
  MATCH (n:Event) WHERE n.tenant = $tenant RETURN n
}
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
// params
{
  "tenant": "acme"
}
