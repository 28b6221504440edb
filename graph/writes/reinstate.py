"""Knowledge ends after versions leave the engine or come back (a source retracted, or its
retraction undone).

A supersede closes the previous version's knowledge interval where the correcting version
becomes known (``vintage.graph.writes.semantics``), and the cascade closes what was derived from it
(``vintage.graph.writes.cascade``). Both closures rest on the correcting version, linked to what it
corrects by
``SUPERSEDES``. When that version leaves (the only source supporting it was retracted) the
closure has lost its cause and the version it corrected is current again; when it comes back
(the retraction undone) the closure is due again. So after either exit, each live version that a
departed or returned version corrected (and each returned version itself) gets the knowledge end
that the versions held now imply, and so does every fact derived downstream
(docs/semantics.md, "Reinstatement"):

    end(f) = min(next(f), justified(f))

``next(f)``: the ``available_at`` of the first live version of f's assertion after f in
(available_at, revision) order, where that version supersedes it (of two known at one instant
the higher revision wins and the other's interval is empty, as when they were written).
``justified(f)``: truth maintenance over f's justifications whose inputs are all held
(``vintage.graph.writes.cascade.justified_until``); none for a fact no derivation generated.
``None`` is open.

A moved end never overwrites the closure it replaces: that one becomes a past closure with the
system-time stretch it held (``KnowledgeEnd``), so a read at an earlier system instant answers
as the engine did then. A plain invalidation is no such exit: the user withdrew that version,
and the one it corrected stays closed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from vintage.graph.core.labels import SUPERSEDES
from vintage.graph.core.model import Fact
from vintage.graph.store.protocol import Direction, KnowledgeEnd, StoreTx
from vintage.graph.writes.cascade import Chains, Fate, Outcome, downstream, justified_until
from vintage.graph.writes.reach import FactRef


def settle_knowledge(
    tx: StoreTx, now: datetime, gone: Sequence[str] = (), back: Sequence[str] = (),
) -> list[Outcome]:
    """Re-end what versions ``gone`` (no longer held) and ``back`` (held again) corrected, and
    what is derived from those; return every fact whose knowledge end moved."""
    seeds = sorted(set(_corrected_by(tx, [*gone, *back], now)) | set(back))
    facts = tx.get_facts(seeds)
    if not facts:
        return []
    # The writers of these subjects wait for this transaction, and what is decided is read
    # after the locks: a correction written meanwhile is either part of the chains read here,
    # or planned afterwards on the ends written here.
    tx.lock_subjects(sorted({f.subject for f in facts.values()}))
    seeds = sorted(fid for fid, f in tx.get_facts(seeds).items() if f.invalidated_at is None)
    plan = downstream(tx, seeds, now, also=seeds)
    chains = tx.versions(sorted({plan.facts[fid].key for fid in plan.order}))
    ends: dict[str, datetime | None] = {}
    moved: list[Outcome] = []
    for fid in plan.order:
        fact = plan.facts[fid]
        if fact.invalidated_at is not None:
            continue  # not held: its interval answers nothing now
        end = _earliest(_next(fact, chains.get(fact.key, [])), _justified(plan, fid, ends))
        ends[fid] = end
        if end != fact.superseded_at:
            path = plan.paths.get(fid, (fid,))
            moved.append(Outcome(FactRef.of(fact), len(path) - 1, path,
                                 Fate.REINSTATED if end is None else Fate.CLOSED, end))
    tx.set_knowledge_ends([KnowledgeEnd(o.fact.id, o.ends_at, now) for o in moved])
    return moved


def _corrected_by(tx: StoreTx, versions: Sequence[str], now: datetime) -> list[str]:
    """The versions that ``versions`` supersede (one ``SUPERSEDES`` step)."""
    if not versions:
        return []
    walk = tx.walk(sorted(set(versions)), Direction.UPSTREAM, now, 1, (SUPERSEDES,))
    starts = set(versions)
    return sorted({e.end for e in walk.edges if e.type == SUPERSEDES and e.start in starts})


def _next(fact: Fact, versions: Sequence[Fact]) -> datetime | None:
    """Where the first live version after ``fact`` in (available_at, revision) order begins."""
    after = [v.available_at for v in versions
             if v.id != fact.id and (v.available_at, v.revision) > (fact.available_at,
                                                                    fact.revision)]
    return min(after, default=None)


def _justified(plan: Chains, fid: str, ends: Mapping[str, datetime | None]) -> datetime | None:
    # Only justifications whose inputs are all held count: one resting on a version that left
    # justifies nothing now (the system-axis cascade already decided whether the fact stays).
    held = [ids for ids in plan.justifications.get(fid, [])
            if all(plan.facts[i].invalidated_at is None for i in ids)]
    return justified_until(held, lambda i: ends[i] if i in ends else
                           plan.facts[i].superseded_at)


def _earliest(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None:
        return b
    return a if b is None or a <= b else b
