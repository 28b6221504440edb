"""The command line as a client of the HTTP API (``vintage --server URL``): one module per
group of commands, ``http`` the one connection."""
