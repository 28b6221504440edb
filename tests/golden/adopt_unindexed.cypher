MATCH (f:Fact)
WHERE f.search_terms IS NULL AND f.erased_at IS NULL AND NOT f:Unindexed
CALL (f) { SET f:Unindexed } IN TRANSACTIONS OF 10000 ROWS
// params
{}
