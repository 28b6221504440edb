UNWIND $groups AS g
MATCH (s:Source {tenant: $tenant, id: g.source_id}) USING INDEX SEEK s:Source(tenant, id)
UNWIND g.members AS fact_id
MATCH (f:Fact {tenant: $tenant, id: fact_id}) USING INDEX SEEK f:Fact(tenant, id)
MERGE (f)-[r:SUPPORTED_BY]->(s)
ON CREATE SET r.available_at = g.available_at, r.recorded_at = g.recorded_at
// params
{
  "groups": [
    {
      "available_at": "2019-04-30 00:00:00+00:00",
      "members": [
        "a",
        "b"
      ],
      "recorded_at": "2019-04-30 00:00:00+00:00",
      "source_id": "s1"
    }
  ],
  "tenant": "acme"
}
