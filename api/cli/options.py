"""Global command-line options (``--store``, ``--tenant``, ``--actor``), and the option types
and argument readers that every command group shares."""

from __future__ import annotations

import getpass
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from vintage.graph.core import literals
from vintage.graph.core.asof import TenantRequired
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.model import Scope
from vintage.graph.store.backends import is_neo4j, open_store, resolve_uri
from vintage.graph.store.protocol import Store

ACTOR_PREFIX = "user:"


def default_actor() -> str:
    """Who runs a command when neither ``--actor`` nor ``VINTAGE_ACTOR`` says: the operating
    system's user name, as ``user:NAME``."""
    try:
        name = getpass.getuser()
    except (OSError, KeyError):  # no login name in the environment and no passwd entry
        name = "unknown"
    return ACTOR_PREFIX + name


@dataclass
class Options:
    store: str | None
    tenant: str | None
    actor: str  # who every event this command causes names (``--actor``)

    @contextmanager
    def opened(self, *, create: bool = False) -> Iterator[Store]:
        """The store, closed after. An embedded store that does not exist yet is made only by
        a command that writes something new into it (``create``: remember, ingest, demo,
        keys create...); any other refuses, so a mistyped ``--store`` is said, not answered
        from a new empty store left behind."""
        if not create:
            target = resolve_uri(self.store)
            if not is_neo4j(target) and not Path(target).exists():
                raise InvalidArgument(
                    f"no store at {target}: nothing is held there (a read never makes one; "
                    "remember, ingest or demo does): check --store or VINTAGE_STORE")
        store = open_store(self.store)
        try:
            yield store
        finally:
            store.close()

    def scope(self, **keys: str) -> Scope:
        if not self.tenant:
            raise TenantRequired("this command reads or writes facts: give --tenant or "
                                 "set VINTAGE_TENANT (a request is never widened to all tenants)")
        return Scope(tenant=self.tenant, keys=keys)


AsJson = Annotated[bool, typer.Option("--json", help="The result as JSON.")]


class OutputFormat(StrEnum):
    TABLE = "table"
    CSV = "csv"


Format = Annotated[OutputFormat, typer.Option(
    "--format", help="table, or csv: a header row, then a row per line of the table, every "
                     "digit kept (vintage.render.rows).")]


def as_csv_unless_json(fmt: OutputFormat, as_json: bool) -> bool:
    """Whether to write CSV; both --json and --format csv is a refusal, not a choice made."""
    if as_json and fmt is OutputFormat.CSV:
        raise typer.BadParameter("give --json or --format csv, not both", param_hint="--format")
    return fmt is OutputFormat.CSV
MinAuthority = Annotated[str | None, typer.Option(
    "--min-authority", help="Only items holding at least this authority: unknown_text, "
                            "model_guess, multi_turn_inference, approved_summary, "
                            "authoritative, user_statement.")]
RiskLevel = Annotated[str | None, typer.Option(
    "--risk", help="The question's risk, mapped to a minimum authority: low (model_guess), "
                   "medium (approved_summary), high (authoritative).")]
AllScopes = Annotated[bool, typer.Option(
    "--all-scopes", help="Read every scope of the tenant instead of naming --user, --project or "
                         "--thread (audited: an event names the actor and the read).")]


def typed_value(text: str, typed: bool) -> Any:
    """VALUE as given, or with ``--typed`` read as a JSON literal (``7``, ``true``); malformed
    JSON is the caller's error, reported with the parser's message."""
    if not typed:
        return text
    try:
        value = literals.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidArgument(str(exc)) from None
    if isinstance(value, list | dict) or value is None:
        given = ("an array" if isinstance(value, list)
                 else "an object" if isinstance(value, dict) else "null")
        raise InvalidArgument("--typed reads one JSON value: a number, true, false or a "
                              f"string, not {given}")
    return value
