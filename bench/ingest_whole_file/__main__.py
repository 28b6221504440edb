"""``python -m bench.ingest_whole_file``: the suite's command (bench/README.md)."""

from bench.ingest_whole_file.main import main

main()
