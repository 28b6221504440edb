"""``python -m bench.retrieval``: the suite's command (bench/README.md)."""

from bench.retrieval.main import main

raise SystemExit(main())
