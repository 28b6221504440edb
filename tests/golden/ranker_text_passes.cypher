CALL vintage.text_passes() YIELD lucene, kernel, unavailable RETURN lucene, kernel, unavailable
// params
{}
