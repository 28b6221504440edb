"""The HTTP API (FastAPI): ``create_app`` in ``vintage.http.app``; ``vintage serve`` runs it."""
