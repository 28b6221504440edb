"""Benchmark suite: SEC companyfacts ingest and as-of metric questions, beside raw Neo4j
(bench/README.md)."""
