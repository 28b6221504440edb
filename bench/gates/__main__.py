"""``python -m bench.gates``: the suite's command (bench/README.md)."""

from bench.gates.main import main

raise SystemExit(main())
