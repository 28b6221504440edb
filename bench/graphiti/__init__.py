"""Vintage and Graphiti side by side on one Neo4j (issue 41)."""
