MATCH (e:Episodic) WHERE e.group_id IN $groups
RETURN e.uuid AS uuid, e.name AS name, e.group_id AS group_id, e.source AS source,
       e.source_description AS source_description, e.content AS content,
       e.valid_at AS valid_at, e.created_at AS created_at
ORDER BY e.created_at, e.uuid
// params
{
  "groups": [
    "chat-1",
    "\u56e2\u961f-2"
  ]
}
