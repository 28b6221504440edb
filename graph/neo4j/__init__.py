"""The Neo4j backend: Cypher builders, the runner that executes them, and the local launcher."""
