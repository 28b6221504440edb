CREATE (d:Derivation)
SET d = $props, d.tenant = $tenant
WITH d
CALL (d) {
  UNWIND $used AS u
  MATCH (f:Fact {tenant: $tenant, id: u.fact_id})
  CREATE (d)-[:USED {role: u.role, recorded_at: d.recorded_at}]->(f)
}
CALL (d) {
  UNWIND $generated AS gid
  MATCH (f:Fact {tenant: $tenant, id: gid})
  CREATE (d)-[:GENERATED {recorded_at: d.recorded_at}]->(f)
}
// params
{
  "generated": [
    "b"
  ],
  "props": {
    "id": "d1"
  },
  "tenant": "acme",
  "used": [
    {
      "fact_id": "a",
      "role": "x"
    }
  ]
}
