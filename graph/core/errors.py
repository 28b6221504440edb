"""The root of the errors that are the caller's to fix, kept apart from the engine's own faults.

Every error that refuses a request or its input derives from :class:`UserError`: the store's
refusals (``StoreError`` and its kinds), malformed instants, periods, formulas, recipes and
metric definitions, a request without a tenant, a malformed file to ingest, a local Neo4j
server that cannot be built or started. The command line prints these as one line and exits
2; any other exception is a fault of the engine, reported as an internal error.

The subclasses keep their former base (``ValueError`` or ``RuntimeError``) as well, so that code
that caught those, and pydantic validators (which turn only a ``ValueError`` into a
``ValidationError``), behave as before.
"""

from __future__ import annotations


class UserError(Exception):
    """The caller's input or request was refused; nothing of the refused operation was
    written to the store."""


class InvalidArgument(UserError, ValueError):
    """An argument outside what the operation accepts (a weight above 1, an empty thread, no
    subject, malformed JSON for a typed value)."""
