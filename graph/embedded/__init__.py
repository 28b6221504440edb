"""The embedded backend: the same semantics as Neo4j, in process, with no server."""
