CALL vintage.cascade_close($tenant, $changed, $axis, $at)
YIELD id, subject, predicate, value, unit, sealed, depth, path, end
RETURN id, subject, predicate, value, unit, sealed, depth, path, end
// params
{
  "at": 1556582400000000,
  "axis": "knowledge",
  "changed": {
    "x": 1556582400000000,
    "y": null
  },
  "tenant": "acme"
}
