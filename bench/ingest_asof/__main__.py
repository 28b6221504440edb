"""``python -m bench.ingest_asof``: the suite's command (bench/README.md)."""

from bench.ingest_asof.main import main

raise SystemExit(main())
