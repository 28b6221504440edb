"""``python -m bench.embedded_cli``: the suite's command (bench/README.md)."""

from bench.embedded_cli.main import main

raise SystemExit(main())
