CALL vintage.rank($request)
YIELD exact, keyword, semantic, legal, matched, excluded, also
RETURN exact, keyword, semantic, legal, matched, excluded, also
// params
{
  "request": {
    "counted": true,
    "identifiers": [],
    "ids": [
      "a",
      "b"
    ],
    "kinds": null,
    "known": 1556582400000000,
    "model": "minilm",
    "per_leg": 3,
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
    "text": null,
    "token": "t.822b33ad87c148a0",
    "unexpired": null,
    "valid_at": 1556582400000000,
    "valid_end": null,
    "valid_start": null,
    "vector": [
      1.0,
      0.0
    ]
  }
}
