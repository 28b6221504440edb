"""``python -m bench.embedded_cli.grow SRC DST --copies N``: a bigger store for
``bench.embedded_cli`` (issue 39's 100k and 1M fact versions) without embedding anew.

SRC is a store holding the six bundled companies, indexed, at this Vintage's schema (open it
once with this checkout's ``vintage`` to bring it up to date; an older checkout's store is
grown by that checkout's own ``grow``, since the postings' shape is the schema's). DST gets a
copy of
it where each tenant's companies are repeated N more times under new subject ids
(``GOOGL_C1``, ...): every fact, its search entry (the real text's terms and the real model's
vector), its ABOUT, SUPPORTED_BY and SUPERSEDES edges, and the subjects. The texts are the
bundled ones, repeated: what grows is how many versions a tenant holds and how many postings a
term has, which is what a command's cost must not follow. The postings and statistics are
rebuilt from the entries (``post_all``), as an upgrade would.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from vintage.graph.sqlite.indexing import post_all
from vintage.graph.sqlite.schema import DB_NAME, SCHEMA_VERSION


def grow(conn: sqlite3.Connection, copies: int) -> None:
    columns = [r[1] for r in conn.execute("PRAGMA table_info(facts)")]
    plain = [c for c in columns if c not in ("id", "key", "subject", "body")]
    for n in range(1, copies + 1):
        tag = f".c{n}"
        subj = f"'_C{n}'"
        conn.execute(
            f"INSERT INTO facts (id, key, subject, body, {', '.join(plain)}) "
            f"SELECT id || '{tag}', key || '{tag}', subject || {subj}, json_set(body, "
            f"'$.id', id || '{tag}', '$.key', key || '{tag}', '$.subject', subject || {subj}), "
            f"{', '.join(plain)} FROM facts WHERE id NOT LIKE '%.c%'")
        entry_columns = [r[1] for r in conn.execute("PRAGMA table_info(entries)")
                         if r[1] not in ("fact_id",)]
        conn.execute(
            f"INSERT INTO entries (fact_id, {', '.join(entry_columns)}) SELECT fact_id || "
            f"'{tag}', {', '.join(entry_columns)} FROM entries WHERE fact_id NOT LIKE '%.c%'")
        conn.execute(
            "INSERT INTO records (tenant, label, id, at, action, body) SELECT tenant, label, "
            f"id || {subj}, at, action, json_set(body, '$.id', id || {subj}, '$.name', "
            f"id || {subj}, '$.identifiers', json('[]')) FROM records WHERE label = 'Subject' "
            "AND id NOT LIKE '%\\_C%' ESCAPE '\\'")
        conn.execute(f"INSERT INTO names (tenant, name, subject) SELECT DISTINCT tenant, "
                     f"subject || {subj}, subject || {subj} FROM names WHERE subject NOT LIKE "
                     "'%\\_C%' ESCAPE '\\'")
        conn.execute(
            "INSERT INTO edges (tenant, type, src, dst, src_label, dst_label, recorded_at, "
            f"invalidated_at, gaps, props) SELECT tenant, type, src || '{tag}', CASE type "
            f"WHEN 'ABOUT' THEN dst || {subj} WHEN 'SUPERSEDES' THEN dst || '{tag}' ELSE dst "
            "END, src_label, dst_label, recorded_at, invalidated_at, gaps, props FROM edges "
            "WHERE type IN ('ABOUT', 'SUPPORTED_BY', 'SUPERSEDES') AND src NOT LIKE '%.c%'")
    post_all(conn)
    conn.execute("UPDATE generations SET n = n + 1")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.embedded_cli.grow")
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--copies", type=int, required=True)
    args = parser.parse_args(argv)
    if args.target.exists():
        raise SystemExit(f"{args.target} exists")
    with closing(sqlite3.connect(args.source / DB_NAME)) as source:
        found = source.execute("PRAGMA user_version").fetchone()[0]
    if found != SCHEMA_VERSION:
        raise SystemExit(f"{args.source} is at schema {found}, this Vintage's is "
                         f"{SCHEMA_VERSION}: open it once with this checkout's vintage first")
    shutil.copytree(args.source, args.target)
    conn = sqlite3.connect(args.target / DB_NAME, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    grow(conn, args.copies)
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    (total,) = conn.execute("SELECT COUNT(*) FROM facts").fetchone()
    conn.close()
    print(f"{args.target}: {total} fact versions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
