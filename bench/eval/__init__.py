"""The evaluation ladder on both backends in one run (bench/README.md, ``bench.eval``)."""
