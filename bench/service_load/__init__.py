"""Benchmark suite: the HTTP service under concurrent load (bench/README.md)."""
