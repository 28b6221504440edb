"""Benchmark suite: search inside the legal set: every mode, embedded and Neo4j, 10k and 100k,
beside naive RAG and raw Neo4j (bench/README.md)."""
