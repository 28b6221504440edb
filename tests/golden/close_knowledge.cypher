UNWIND $groups AS g
UNWIND g.members AS fact_id
MATCH (f:Fact {tenant: $tenant, id: fact_id}) USING INDEX SEEK f:Fact(tenant, id)
SET f._vintage_lock = true REMOVE f._vintage_lock
WITH f, g
WHERE f.superseded_at IS NULL
SET f.superseded_at = g.superseded_at, f.superseded_recorded_at = g.recorded_at
RETURN count(f) AS closed
// params
{
  "groups": [
    {
      "members": [
        "a",
        "b"
      ],
      "recorded_at": "2019-04-30 00:00:00+00:00",
      "superseded_at": "2019-04-30 00:00:00+00:00"
    }
  ],
  "tenant": "acme"
}
