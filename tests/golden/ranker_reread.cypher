CALL vintage.reread($request)
YIELD rows, sources, subjects
RETURN rows, sources, subjects
// params
{
  "request": {
    "fields": [
      "id",
      "key",
      "revision",
      "tenant",
      "scope",
      "kind",
      "status",
      "subject",
      "predicate",
      "value",
      "unit",
      "past_superseded_at",
      "past_superseded_from",
      "past_superseded_to",
      "authority",
      "owner",
      "retention_reason",
      "content_hash",
      "event_id",
      "change",
      "sealed",
      "ciphertext"
    ],
    "ids": [
      "a",
      "b"
    ],
    "instant_lists": [
      "gaps_from",
      "gaps_to"
    ],
    "instants": [
      "valid_from",
      "valid_to",
      "available_at",
      "superseded_at",
      "superseded_recorded_at",
      "recorded_at",
      "invalidated_at",
      "expires_at",
      "erased_at"
    ],
    "kinds": null,
    "known": 1556582400000000,
    "predicates": null,
    "scope": [
      "user=42"
    ],
    "shared_only": false,
    "statuses": [
      "active"
    ],
    "system": 1556582400000000,
    "tenant": "acme",
    "token": "t.822b33ad87c148a0",
    "unexpired": 1556582400000000,
    "valid_at": null,
    "valid_end": null,
    "valid_start": null
  }
}
