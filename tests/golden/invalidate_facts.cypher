UNWIND $groups AS g
UNWIND g.members AS fact_id
MATCH (f:Fact {tenant: $tenant, id: fact_id}) USING INDEX SEEK f:Fact(tenant, id)
SET f._vintage_lock = true REMOVE f._vintage_lock
WITH f, g
WHERE f.invalidated_at IS NULL
SET f.invalidated_at = g.at
// params
{
  "groups": [
    {
      "at": "2019-04-30 00:00:00+00:00",
      "members": [
        "f"
      ]
    }
  ],
  "tenant": "acme"
}
