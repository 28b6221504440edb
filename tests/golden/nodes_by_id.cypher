MATCH (n:Fact)
USING INDEX SEEK n:Fact(tenant, id)
WHERE n.tenant = $tenant AND n.id IN $ids
RETURN n {.id, .key, .revision, .tenant, .scope, .kind, .status, .subject, .predicate, .value, .unit, .past_superseded_at, .past_superseded_from, .past_superseded_to, .authority, .owner, .retention_reason, .content_hash, .event_id, .change, .sealed, .ciphertext, valid_from: toString(n.valid_from), valid_to: toString(n.valid_to), available_at: toString(n.available_at), superseded_at: toString(n.superseded_at), superseded_recorded_at: toString(n.superseded_recorded_at), recorded_at: toString(n.recorded_at), invalidated_at: toString(n.invalidated_at), expires_at: toString(n.expires_at), erased_at: toString(n.erased_at), gaps_from: [t IN coalesce(n.gaps_from, []) | toString(t)], gaps_to: [t IN coalesce(n.gaps_to, []) | toString(t)]} AS n
// params
{
  "ids": [
    "a"
  ],
  "tenant": "acme"
}
