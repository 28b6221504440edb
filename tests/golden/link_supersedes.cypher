UNWIND $groups AS g
UNWIND g.members AS pair
MATCH (new:Fact {tenant: $tenant, id: pair[0]}) USING INDEX SEEK new:Fact(tenant, id)
MATCH (old:Fact {tenant: $tenant, id: pair[1]}) USING INDEX SEEK old:Fact(tenant, id)
CREATE (new)-[:SUPERSEDES {source_id: g.source_id, at: g.at,
                             recorded_at: g.recorded_at}]->(old)
// params
{
  "groups": [
    {
      "at": "2019-04-30 00:00:00+00:00",
      "members": [
        [
          "b",
          "a"
        ]
      ],
      "recorded_at": "2019-04-30 00:00:00+00:00",
      "source_id": "s1"
    }
  ],
  "tenant": "acme"
}
