"""A new process per command on a filled embedded store (issue 39; bench/README.md)."""
