UNWIND $ids AS id
MATCH (s:Subject {tenant: $tenant, id: id}) USING INDEX SEEK s:Subject(tenant, id)
SET s._vintage_lock = true
REMOVE s._vintage_lock
// params
{
  "ids": [
    "a",
    "b"
  ],
  "tenant": "acme"
}
