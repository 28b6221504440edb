"""Sources to facts: files read whatever their bytes hold, planned whole, then written in batches;
SEC companyfacts (``sec``) and CSV/JSON-lines tables (``facts_table``); the bundled data."""
