SELECT term, COUNT(*) FROM postings WHERE tenant = :tenant AND term IN (SELECT value FROM json_each(:terms)) GROUP BY term
-- params
{
  "tenant": "acme",
  "terms": "[\"oper\", \"incom\"]"
}
