"""A Graphiti 0.31 graph in the same Neo4j, imported into Vintage (``vintage import graphiti``):
the read (``cypher``, ``read``), the mapping to subjects, sources and fact versions through the
gates (``plan``), and the writes (``run``). docs/graphiti.md says what maps to what."""
