"""``python -m bench.sec``: the suite's command (bench/README.md)."""

from bench.sec.main import main

raise SystemExit(main())
