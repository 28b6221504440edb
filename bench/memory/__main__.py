"""``python -m bench.memory``: the suite's command (bench/README.md)."""

from bench.memory.main import main

raise SystemExit(main())
