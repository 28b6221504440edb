"""``python -m bench.mcp_start``: the suite's command (bench/README.md)."""

from bench.mcp_start.main import main

raise SystemExit(main())
