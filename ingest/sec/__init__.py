"""SEC EDGAR companyfacts: the file streamed into rows (``stream``), each later value classed
(``revisions``), and the whole file ingested (``companyfacts``)."""
