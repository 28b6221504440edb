UNWIND $rows AS row
CREATE (s:Source)
SET s = row, s.tenant = $tenant
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
