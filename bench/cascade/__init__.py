"""Benchmark suite: cascade time over derived facts: Vintage's close and recompute beside a naive
walk (bench/README.md)."""
