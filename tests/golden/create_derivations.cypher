UNWIND $rows AS row
CREATE (d:Derivation)
SET d = row.props, d.tenant = $tenant, d.recorded_at = datetime(row.props.recorded_at)
WITH d, row
CALL (d, row) {
  UNWIND row.used AS u
  MATCH (f:Fact {tenant: $tenant, id: u.fact_id}) USING INDEX SEEK f:Fact(tenant, id)
  CREATE (d)-[:USED {role: u.role, recorded_at: d.recorded_at}]->(f)
}
CALL (d, row) {
  UNWIND row.generated AS gid
  MATCH (f:Fact {tenant: $tenant, id: gid}) USING INDEX SEEK f:Fact(tenant, id)
  CREATE (d)-[:GENERATED {recorded_at: d.recorded_at}]->(f)
}
// params
{
  "rows": [
    {
      "generated": [
        "b"
      ],
      "props": {
        "id": "d1",
        "recorded_at": "2019-04-30T00:00:00+00:00"
      },
      "used": [
        {
          "fact_id": "a",
          "role": "x"
        }
      ]
    }
  ],
  "tenant": "acme"
}
