"""``python -m bench.plugin``: the suite's command (bench/README.md)."""

from bench.plugin.main import main

raise SystemExit(main())
