"""Benchmark suite: a synthetic SEC-shaped tenant at 10k, 100k and 1M facts on Neo4j
(bench/README.md)."""
