CALL vintage.text_passes() YIELD lucene, kernel RETURN lucene, kernel
// params
{}
