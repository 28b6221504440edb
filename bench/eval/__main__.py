"""``python -m bench.eval``: the suite's command (bench/README.md)."""

from bench.eval.main import main

raise SystemExit(main())
