UNWIND $rows AS row
MATCH (s:Subject {tenant: $tenant, id: row.subject}) USING INDEX SEEK s:Subject(tenant, id)
CREATE (f:Fact:Unindexed)
SET f = row {.*, valid_from: datetime(row.valid_from), valid_to: datetime(row.valid_to), available_at: datetime(row.available_at), superseded_at: datetime(row.superseded_at), superseded_recorded_at: datetime(row.superseded_recorded_at), recorded_at: datetime(row.recorded_at), invalidated_at: datetime(row.invalidated_at), expires_at: datetime(row.expires_at), erased_at: datetime(row.erased_at), gaps_from: [t IN row.gaps_from | datetime(t)], gaps_to: [t IN row.gaps_to | datetime(t)], past_superseded_at: [t IN row.past_superseded_at | datetime(t)], past_superseded_from: [t IN row.past_superseded_from | datetime(t)], past_superseded_to: [t IN row.past_superseded_to | datetime(t)]}
CREATE (f)-[:ABOUT {role: 'subject', recorded_at: f.recorded_at}]->(s)
// params
{
  "rows": [
    {
      "id": "x",
      "recorded_at": "2019-04-30T00:00:00+00:00"
    }
  ],
  "tenant": "acme"
}
