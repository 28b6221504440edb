CALL vintage.rank($request)
YIELD exact, keyword, semantic, legal, matched, excluded, also
RETURN exact, keyword, semantic, legal, matched, excluded, also
// params
{
  "request": {
    "counted": false,
    "identifiers": [],
    "ids": null,
    "kinds": null,
    "known": 1556582400000000,
    "model": null,
    "per_leg": 10,
    "predicates": [
      "Revenues"
    ],
    "scope": [],
    "shared_only": true,
    "statuses": [
      "active"
    ],
    "system": 1556582400000000,
    "tenant": "acme",
    "text": "+\"t.822b33ad87c148a0\"^0 +\"b.1\"",
    "token": "t.822b33ad87c148a0",
    "unexpired": null,
    "valid_at": null,
    "valid_end": null,
    "valid_start": 1556582400000000,
    "vector": null
  }
}
