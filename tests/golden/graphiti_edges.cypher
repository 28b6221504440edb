MATCH (s:Entity)-[r:RELATES_TO]->(t:Entity) WHERE r.group_id IN $groups
RETURN r.uuid AS uuid, r.group_id AS group_id, r.name AS name, r.fact AS fact,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at,
       r.created_at AS created_at, r.expired_at AS expired_at,
       r.episodes AS episodes, s.uuid AS source_uuid, t.uuid AS target_uuid,
       [k IN keys(r) WHERE NOT k IN $fields | [k, r[k]]] AS attributes
ORDER BY r.created_at, r.uuid
// params
{
  "fields": [
    "uuid",
    "name",
    "fact",
    "fact_embedding",
    "group_id",
    "episodes",
    "created_at",
    "expired_at",
    "valid_at",
    "invalid_at",
    "reference_time",
    "source_uuid",
    "target_uuid"
  ],
  "groups": [
    "chat-1",
    "\u56e2\u961f-2"
  ]
}
