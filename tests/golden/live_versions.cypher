MATCH (f:Fact)
USING INDEX SEEK f:Fact(tenant, key)
WHERE f.tenant = $tenant AND f.key IN $keys AND f.invalidated_at IS NULL
WITH f ORDER BY f.key, f.revision
RETURN f {.id, .key, .revision, .tenant, .scope, .kind, .status, .subject, .predicate, .value, .unit, .past_superseded_at, .past_superseded_from, .past_superseded_to, .authority, .owner, .retention_reason, .content_hash, .event_id, .change, .sealed, .ciphertext, valid_from: toString(f.valid_from), valid_to: toString(f.valid_to), available_at: toString(f.available_at), superseded_at: toString(f.superseded_at), superseded_recorded_at: toString(f.superseded_recorded_at), recorded_at: toString(f.recorded_at), invalidated_at: toString(f.invalidated_at), expires_at: toString(f.expires_at), erased_at: toString(f.erased_at), gaps_from: [t IN coalesce(f.gaps_from, []) | toString(t)], gaps_to: [t IN coalesce(f.gaps_to, []) | toString(t)]} AS f
// params
{
  "keys": [
    "k1"
  ],
  "tenant": "acme"
}
