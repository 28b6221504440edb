UNWIND $ids AS id
MATCH (f:Fact {tenant: $tenant, id: id}) USING INDEX SEEK f:Fact(tenant, id)
WHERE f.erased_at IS NULL
RETURN f.id AS id, coalesce(f.scope, []) AS scope, f.kind AS kind
// params
{
  "ids": [
    "a",
    "b"
  ],
  "tenant": "acme"
}
