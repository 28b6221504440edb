MATCH (d:Derivation)-[:GENERATED]->(f:Fact)
WHERE d.tenant = $tenant AND d.id IN $ids
RETURN d.id AS derivation, properties(f) AS f
// params
{
  "ids": [
    "d1"
  ],
  "tenant": "acme"
}
