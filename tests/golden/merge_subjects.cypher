UNWIND $rows AS row
MERGE (s:Subject {tenant: $tenant, id: row.id})
ON CREATE SET s += row
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
