"""``python -m bench.graphiti_import``: the suite's command (bench/README.md)."""

from bench.graphiti_import.main import main

raise SystemExit(main())
