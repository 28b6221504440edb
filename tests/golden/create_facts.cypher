UNWIND $rows AS row
MATCH (s:Subject {tenant: $tenant, id: row.subject})
CREATE (f:Fact:Unindexed)
SET f = row
CREATE (f)-[:ABOUT {role: 'subject', recorded_at: row.recorded_at}]->(s)
// params
{
  "rows": [
    {
      "id": "x",
      "recorded_at": "2019-04-30 00:00:00+00:00"
    }
  ],
  "tenant": "acme"
}
