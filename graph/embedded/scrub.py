"""Erasure reaches the embedded log: the one rewrite of an otherwise append-only file.

The rewrite is journalled. Before it starts, ``vintage.scrub.json`` names the tenant and the
facts to scrub (fsynced); the log is copied to ``<log>.scrub`` with their content and search
entries removed, fsynced and renamed over the log; only then is the journal removed. A crash
at any point leaves the journal behind, and the next writer (or the next open) runs the
rewrite again from the start: it is idempotent, so finishing it twice is harmless, and the
erased text cannot outlive a restart.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from vintage.graph.embedded.entries import ERASED
from vintage.graph.embedded.log import SCRUB_JOURNAL, frame, reframe, unframe
from vintage.graph.sealing.sealed import CIPHERTEXT
from vintage.graph.store.durable import fsync_dir


def scrub(directory: Path, log: Path, tenant: str, fact_ids: set[str]) -> None:
    """Rewrite ``log`` with the content of ``fact_ids`` (of ``tenant``) removed. The caller
    holds the writer lock."""
    journal = directory / SCRUB_JOURNAL
    with journal.open("w", encoding="utf-8") as out:
        json.dump({"tenant": tenant, "facts": sorted(fact_ids)}, out)
        out.flush()
        os.fsync(out.fileno())
    fsync_dir(directory)
    _rewrite(log, tenant, fact_ids)
    journal.unlink()
    fsync_dir(directory)


def finish_interrupted(directory: Path, log: Path) -> bool:
    """Run again an erasure's rewrite that a crash interrupted; True if there was one."""
    journal = directory / SCRUB_JOURNAL
    if not journal.exists():
        return False
    pending = json.loads(journal.read_text(encoding="utf-8"))
    if log.exists():
        _rewrite(log, pending["tenant"], set(pending["facts"]))
    journal.unlink()
    fsync_dir(directory)
    return True


def _rewrite(log: Path, tenant: str, fact_ids: set[str]) -> None:
    fresh = log.with_name(log.name + ".scrub")
    # A line that names none of the ids holds none of their content: copied as it is,
    # without decoding (most of a long log).
    named = re.compile("|".join(re.escape(i) for i in sorted(fact_ids)).encode("utf-8"))
    with log.open("rb") as lines, fresh.open("wb") as out:
        for n, raw in enumerate(lines, start=1):
            line = raw.rstrip(b"\n")
            if not raw.endswith(b"\n"):
                break  # a torn tail never committed: it is not carried over
            if named.search(line) is None:
                out.write(reframe(line))
                continue
            entry = unframe(line, f"{log}: line {n}")
            if entry["tenant"] == tenant:
                # A search entry (terms, vector) is derived from the text: it goes whole.
                entry["ops"] = [[op, payload] for op, payload in entry["ops"]
                                if not (op == "index" and payload["fact_id"] in fact_ids)]
                for op, payload in entry["ops"]:
                    if op == "fact" and payload["id"] in fact_ids:
                        # A sealed fact's ciphertext goes too: the second line of defence,
                        # should its key outlive the erasure.
                        payload.pop(CIPHERTEXT, None)
                        payload.update(value="", content_hash=ERASED, retention_reason=None,
                                       owner=None)
                if not entry["ops"]:
                    continue  # a transaction that only indexed erased facts: nothing is left
            out.write(frame(entry))
        out.flush()
        os.fsync(out.fileno())
    os.replace(fresh, log)
    fsync_dir(log.parent)
