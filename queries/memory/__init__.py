"""Memory read back: recall by subject and key, a user's list and the audit trail, and summaries
with lineage to what they summarise."""
