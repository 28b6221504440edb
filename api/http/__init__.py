"""The HTTP API (FastAPI): ``create_app`` in ``api.http.app``; ``vintage serve`` runs it."""
