"""``python -m bench.cascade``: the suite's command (bench/README.md)."""

from bench.cascade.main import main

raise SystemExit(main())
