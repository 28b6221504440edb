"""Naming the subject of a question: by its id, by a company's CIK in any common form
(``320193``, ``0000320193``, ``CIK0000320193``) or by its ticker where one is known.

``vintage.ingest.sec.companyfacts`` keeps a company's ten-digit CIK and its ticker as identifiers on
its
``Subject`` (``cik:0000320193``, ``ticker:AAPL``); a facts table's subjects have their id only.
A name is tried as the id first, then as a CIK, then as a ticker (any case), in one store read
for all the names of a question. A name that matches nothing is an error naming it and the
closest known ids and tickers: answering "nothing public" for a typo would read like a company
with no filings yet, which a known subject with no data still gets.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence

from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.model import Subject
from vintage.graph.store.protocol import Store, StoreTx

_CIK = re.compile(r"(?:CIK)?:?0*([0-9]{1,10})", re.IGNORECASE | re.ASCII)
_TICKER = "ticker:"


class UnknownSubject(InvalidArgument):
    """A question names a subject that its tenant does not hold (nor any with that CIK or
    ticker), or a name that fits two subjects."""


def forms(name: str) -> list[str]:
    """What ``name`` may be stored as, in the order tried: the id itself, a CIK (as an
    identifier, and as the id a company without a ticker gets), a ticker."""
    found = [name]
    if m := _CIK.fullmatch(name):
        cik = m.group(1).zfill(10)
        found += [f"cik:{cik}", f"CIK{cik}"]
    found.append(f"{_TICKER}{name.upper()}")
    return list(dict.fromkeys(found))


def resolve_subjects(store: Store, tenant: str, names: Sequence[str]) -> list[str]:
    """The subject id each name stands for, in order; ``UnknownSubject`` for the first name
    that stands for none (with the closest known names) or for two."""
    return _resolve(lambda wanted: store.subjects(tenant, wanted), tenant, names)


def resolve_in(tx: StoreTx, names: Sequence[str]) -> list[str]:
    """``resolve_subjects`` inside a transaction: a question resolves its names in the read
    that answers it, not in a transaction of its own."""
    return _resolve(tx.subjects, tx.tenant, names)


def _resolve(lookup: Callable[[Sequence[str] | None], list[Subject]], tenant: str,
             names: Sequence[str]) -> list[str]:
    tried = {name: forms(name.strip()) for name in names}
    held = lookup(sorted({f for fs in tried.values() for f in fs}))
    by_form: dict[str, set[str]] = {}
    for subject in held:
        for form in (subject.id, *subject.identifiers):
            by_form.setdefault(form, set()).add(subject.id)
    resolved = []
    for name, fs in tried.items():
        ids = next((by_form[f] for f in fs if f in by_form), None)
        if ids is None:
            raise UnknownSubject(_unknown(name, tenant, lookup(None)))
        if len(ids) > 1:
            raise UnknownSubject(f"subject {name!r} is ambiguous: it names "
                                 f"{', '.join(sorted(ids))}; ask by id")
        resolved.append(next(iter(ids)))
    return resolved


def _unknown(name: str, tenant: str, every: Sequence[Subject]) -> str:
    shown = name[:40] + ("…" if len(name) > 40 else "")
    if not every:
        return f"unknown subject {shown!r}: tenant {tenant!r} holds no subjects yet"
    known = {s.id.upper(): s.id for s in every}
    known |= {i[len(_TICKER):].upper(): i[len(_TICKER):] for s in every for i in s.identifiers
              if i.startswith(_TICKER)}
    close = [known[k] for k in difflib.get_close_matches(name.upper(), list(known), n=3,
                                                         cutoff=0.5)]
    hint = f"; closest: {', '.join(close)}" if close else ""
    return (f"unknown subject {shown!r}: no subject of tenant {tenant!r} has that id, CIK or "
            f"ticker{hint}")
