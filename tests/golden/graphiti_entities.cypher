MATCH (n:Entity) WHERE n.group_id IN $groups
RETURN n.uuid AS uuid, n.name AS name, n.group_id AS group_id,
       [l IN labels(n) WHERE l <> 'Entity'] AS labels
ORDER BY n.uuid
// params
{
  "groups": [
    "chat-1",
    "\u56e2\u961f-2"
  ]
}
