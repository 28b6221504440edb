CALL vintage.rank($request)
YIELD exact, keyword, semantic, legal, matched, excluded, also
RETURN exact, keyword, semantic, legal, matched, excluded, also
// params
{
  "request": {
    "counted": true,
    "identifiers": [
      "b.2"
    ],
    "ids": null,
    "kinds": [
      "preference"
    ],
    "known": 1556582400000000,
    "model": "minilm",
    "per_leg": 5,
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
    "text": "+\"t.822b33ad87c148a0\"^0 +\"s.f4f27c0c2d8921bf\"^0 +(\"b.1\" \"b.2\")",
    "token": "t.822b33ad87c148a0",
    "unexpired": 1556582400000000,
    "valid_at": null,
    "valid_end": null,
    "valid_start": null,
    "vector": [
      0.6,
      0.8
    ]
  }
}
