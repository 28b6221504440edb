UNWIND $rows AS row
CREATE (e:Event)
SET e = row, e.tenant = $tenant, e.at = datetime(row.at)
// params
{
  "rows": [
    {
      "at": "2019-04-30T00:00:00+00:00",
      "id": "e1"
    }
  ],
  "tenant": "acme"
}
