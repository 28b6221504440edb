"""The embedded backend on SQLite: the store's records in one database file, the as-of predicate
in its queries (``vintage.graph.sqlite.asof``), one transaction per store write."""
