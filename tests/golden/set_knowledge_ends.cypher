UNWIND $rows AS row
MATCH (f:Fact {tenant: $tenant, id: row.fact_id}) USING INDEX SEEK f:Fact(tenant, id)
SET f._vintage_lock = true REMOVE f._vintage_lock
WITH f, row, f.superseded_at AS old,
     coalesce(f.superseded_recorded_at, f.recorded_at) AS since
SET f.past_superseded_at = CASE WHEN old IS NULL THEN f.past_superseded_at
      ELSE coalesce(f.past_superseded_at, []) + [old] END,
    f.past_superseded_from = CASE WHEN old IS NULL THEN f.past_superseded_from
      ELSE coalesce(f.past_superseded_from, []) + [since] END,
    f.past_superseded_to = CASE WHEN old IS NULL THEN f.past_superseded_to
      ELSE coalesce(f.past_superseded_to, []) + [row.recorded_at] END,
    f.superseded_at = row.superseded_at,
    f.superseded_recorded_at = CASE WHEN row.superseded_at IS NULL THEN null
      ELSE row.recorded_at END
// params
{
  "rows": [
    {
      "fact_id": "f",
      "recorded_at": "2019-04-30 00:00:00+00:00",
      "superseded_at": null
    },
    {
      "fact_id": "g",
      "recorded_at": "2019-04-30 00:00:00+00:00",
      "superseded_at": "2019-04-30 00:00:00+00:00"
    }
  ],
  "tenant": "acme"
}
