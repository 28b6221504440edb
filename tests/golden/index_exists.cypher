SHOW INDEXES YIELD name WHERE name = $name RETURN name
// params
{
  "name": "vintage_fact_text"
}
