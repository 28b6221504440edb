"""``python -m bench.graphiti``: Vintage and Graphiti side by side (bench/README.md)."""

from bench.graphiti.main import main

raise SystemExit(main())
