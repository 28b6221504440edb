"""Benchmark suite: ingest throughput and as-of read latency (bench/README.md)."""
