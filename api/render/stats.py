"""``vintage stats``: what a store holds, for one tenant (counts, one to a line) or for every
tenant of a local store (``--all-tenants``: a table, a row per tenant); ``--json`` and
``--format csv`` the same as data. Formatting only: no store access, no logic."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from rich.console import Console

from vintage.queries.lineage.stats import Holdings
from vintage.render.figures import when
from vintage.render.rows import print_table_csv
from vintage.render.terminal import print_json, safe, table

COLUMNS = ("tenant", "subjects", "concepts", "facts", "by_kind", "sources", "events",
           "first_known", "last_known", "size_bytes")


def data(held: Holdings) -> dict[str, Any]:
    return dataclasses.asdict(held) | {
        "first_known": held.first_known.isoformat() if held.first_known else None,
        "last_known": held.last_known.isoformat() if held.last_known else None}


def rows(found: Sequence[Holdings]) -> list[tuple[Any, ...]]:
    """A row per tenant; ``by_kind`` as ``kind count`` pairs (``observation 3 memory 1``)."""
    return [(d["tenant"], d["subjects"], d["concepts"], d["facts"],
             " ".join(f"{k} {n}" for k, n in d["by_kind"].items()), d["sources"], d["events"],
             d["first_known"], d["last_known"], d["size_bytes"])
            for d in map(data, found)]


def _size(size_bytes: int | None) -> str:
    return ("a server's database" if size_bytes is None
            else f"embedded, {size_bytes / 1_000_000:,.1f} MB on disk, all tenants")


def holdings(console: Console, held: Holdings, uri: str, as_json: bool,
             to_csv: bool = False) -> None:
    """One tenant: counts, one to a line."""
    if to_csv:
        print_table_csv(COLUMNS, rows([held]))
        return
    if as_json:
        print_json(console, json.dumps(data(held)))
        return
    kinds = ", ".join(f"{kind} {n:,}" for kind, n in held.by_kind.items())
    console.print(f"tenant {safe(held.tenant)} in {safe(uri)} ({_size(held.size_bytes)})",
                  highlight=False)
    for name, count, more in (
            ("subjects", held.subjects, ""), ("concepts", held.concepts, ""),
            ("facts", held.facts, f" known now ({kinds})" if kinds else " known now"),
            ("sources", held.sources, ""), ("events", held.events, "")):
        console.print(f"  {name:<9} {count:,}{more}", highlight=False)
    if held.first_known is not None:
        console.print(f"  known from {when(held.first_known)} to {when(held.last_known)}",
                      highlight=False)


def every_tenant(console: Console, found: Sequence[Holdings], uri: str, size: int | None,
                 as_json: bool, to_csv: bool = False) -> None:
    """Every tenant of a store: a row each, then the store's size."""
    if to_csv:
        print_table_csv(COLUMNS, rows(found))
        return
    if as_json:
        print_json(console, json.dumps({"store": uri, "size_bytes": size,
                                        "tenants": [data(h) for h in found]}))
        return
    if not found:
        console.print(f"{safe(uri)} holds no tenant ({_size(size)})", highlight=False)
        return
    count = f"{len(found)} tenant{'s' if len(found) > 1 else ''}"
    grid = table(safe(f"{count} in {uri} ({_size(size)})"), "tenant", "subjects",
                 "concepts", "facts", "sources", "events", "known from", "known to")
    for h in found:
        grid.add_row(safe(h.tenant), f"{h.subjects:,}", f"{h.concepts:,}", f"{h.facts:,}",
                     f"{h.sources:,}", f"{h.events:,}",
                     when(h.first_known) if h.first_known else "",
                     when(h.last_known) if h.last_known else "")
    console.print(grid)
