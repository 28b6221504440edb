"""Benchmark suite: a file written whole or not at all: planned first, or one transaction
(bench/README.md)."""
