"""``bench.plugin``: memory and SEC searches with Vintage's Neo4j plugin and without it."""
