"""``python -m bench.scale``: the suite's command (bench/README.md)."""

from bench.scale.main import main

raise SystemExit(main())
