UNWIND $rows AS row
MATCH (new:Fact {tenant: $tenant, id: row.new_id})
MATCH (old:Fact {tenant: $tenant, id: row.old_id})
CREATE (new)-[:SUPERSEDES {source_id: row.source_id, at: row.at,
                             recorded_at: row.recorded_at}]->(old)
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
