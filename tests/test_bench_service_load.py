"""The service load bench cannot rot: its quick run (embedded, 3 s, 4 clients) serves the real
app on loopback, and every request of the mixed workload answers 2xx."""

from __future__ import annotations

from bench.service_load import main as service_load


def test_the_quick_service_load_run_answers_every_request_without_an_error() -> None:
    (result,) = service_load.main(["--quick"])
    assert result["backend"] == "embedded"
    assert result["errors"] == 0
    assert all(result["ops"][op]["requests"] > 0 for op in service_load.OPS)
