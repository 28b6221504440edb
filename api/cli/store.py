"""``vintage store migrate``: convert an embedded store of the old log format into the SQLite
store, once (``vintage.graph.sqlite.migrate``). The store is ``--store`` (or ``$VINTAGE_STORE``,
or the default directory); its key file is found as every command finds it."""

from __future__ import annotations

from pathlib import Path

import typer

from vintage.cli.options import Options
from vintage.graph.sealing.keyfile import FileKeyStore
from vintage.graph.store.backends import is_neo4j, key_path, resolve_uri
from vintage.render.terminal import console, safe

store_app = typer.Typer(no_args_is_help=True, help="The embedded store's files: migrate.")
_out = console()


@store_app.command("migrate")
def migrate_cmd(ctx: typer.Context) -> None:
    """Convert an embedded store in the old log format into the SQLite store, in place."""
    options: Options = ctx.obj
    target = resolve_uri(options.store)
    if is_neo4j(target):
        raise typer.BadParameter("a Neo4j store needs no migration", param_hint="--store")
    # Imported here: it loads the log store (and networkx), which no other command needs.
    from vintage.graph.sqlite.migrate import migrate

    done = migrate(Path(target), FileKeyStore(key_path(target)))
    _out.print(f"migrated {safe(target)}: {done.facts} fact versions, {done.records} records, "
               f"{done.edges} edges, {done.entries} search entries; the old log is kept as "
               f"{safe(str(done.kept))} (delete it once the new store has served you)")
