"""The Neo4j backend: Cypher builders, the runner that executes them, the plugin's handshake,
and the development launcher of a source checkout (docker/)."""
