MATCH (n) WHERE n:Entity OR n:Episodic
RETURN DISTINCT n.group_id AS group_id
ORDER BY group_id
// params
{}
