"""``python -m bench.service_load``: the suite's command (bench/README.md)."""

from bench.service_load.main import main

main()
