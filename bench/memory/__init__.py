"""Benchmark suite: agent memory: gated writes, recall, context and erasure, beside raw Neo4j
(bench/README.md)."""
