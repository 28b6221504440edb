"""Staleness: whether what a read hands over rests, at any depth, on a premise that stopped
holding as of the read's instants (docs/contract.md, "Retrieval and context": stale is said,
never silent; docs/semantics.md, "Staleness").

A derived fact, a memory inference or a summary rests on its premises through lineage
(``USED`` -> derivation -> ``GENERATED``). A premise stops holding, as of a read at knowledge
cutoff ``K``, system instant ``S`` and valid instant ``V``, when:

* it was **superseded** by a version known at ``K`` (and recorded by ``S``), unless that version
  is valid only after ``V`` (an update outside the question's valid time marks nothing);
* it was **retracted** (invalidated) by ``S``;
* it **expired** (its TTL ended) by ``V`` (or ``K`` when the read names no valid instant);
* it lies **below the authority** the read requires (``min_authority``; the hook the risk
  option fills, default none).

Two treatments follow (docs/semantics.md says which kind gets which):

* **closed**: the cascade closed the item when its premise was superseded or retracted, so no
  read hands it over; :func:`closed_for` finds the closed items a read would have matched, so the
  read can say so (premise, when, by what).
* **marked**: the item is still legal (nothing closed it: an expiry, a demotion, a closure the
  cascade does not reach); :func:`staleness` marks it, naming the premise.

Both decide with :func:`stale_premise` on one upstream walk and one read of the premises and
their versions, inside one read transaction of the store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from vintage.graph.core.labels import GENERATED, USED
from vintage.graph.core.model import Fact
from vintage.graph.store.protocol import Direction, Store, StoreTx
from vintage.graph.writes.reach import MAX_DEPTH

SUPERSEDED = "superseded"
RETRACTED = "retracted"
EXPIRED = "expired"
BELOW_AUTHORITY = "below authority"


@dataclass(frozen=True)
class ReadInstants:
    """The instants a read answers at, and the authority it requires (None: any)."""

    known_at: datetime
    system_at: datetime
    valid_at: datetime | None = None
    min_authority: int | None = None


@dataclass(frozen=True)
class Stale:
    """Why an item is stale: the premise that stopped holding, when, and by what."""

    item: str  # the derived fact, inference or summary
    premise: str  # the premise version that stopped holding
    subject: str  # the premise's subject and key, so a reader can name it
    key: str
    reason: str  # SUPERSEDED, RETRACTED, EXPIRED or BELOW_AUTHORITY
    when: datetime | None  # when it stopped holding (None: below authority, no instant)
    by: str | None  # the version that superseded it (None for the other reasons)
    depth: int  # 1: a direct premise; 2: a premise of a premise ...
    closed: bool = False  # the cascade closed the item: it is not handed over
    # The item's own subject and key (what a question about it asks), never its value.
    item_subject: str = ""
    item_key: str = ""

    def document(self) -> dict[str, Any]:
        """The JSON form (trace, HTTP, MCP): ids and instants, never a value."""
        return {"item": self.item, "premise": self.premise, "subject": self.subject,
                "key": self.key, "reason": self.reason,
                "when": None if self.when is None else self.when.isoformat(),
                "by": self.by, "depth": self.depth, "closed": self.closed,
                "item_subject": self.item_subject, "item_key": self.item_key}

    @classmethod
    def of_document(cls, doc: Mapping[str, Any] | None) -> Stale | None:
        """Read back from :meth:`document` (the CLI's HTTP client)."""
        if doc is None:
            return None
        when = doc.get("when")
        return cls(str(doc["item"]), str(doc["premise"]), str(doc["subject"]), str(doc["key"]),
                   str(doc["reason"]),
                   None if when is None else datetime.fromisoformat(str(when)),
                   None if doc.get("by") is None else str(doc["by"]), int(doc["depth"]),
                   bool(doc.get("closed", False)), str(doc.get("item_subject", "")),
                   str(doc.get("item_key", "")))

    def phrase(self) -> str:
        """One line a reader (and an agent) understands, in the pack and on the terminal."""
        said = f"premise {self.subject} {self.key} ({self.premise}) {self.reason}"
        if self.when is not None:
            said += f" {self.when.isoformat().replace('+00:00', 'Z')}"
        return said + (f" by {self.by}" if self.by else "")


def stale_premise(premise: Fact, read: ReadInstants,
                  successor: Fact | None) -> tuple[str, datetime | None] | None:
    """Whether ``premise`` stopped holding as of ``read`` (module docstring): the reason and
    when, or None. ``successor``: the version that superseded it, if any."""
    if premise.invalidated_at is not None and premise.invalidated_at <= read.system_at:
        return RETRACTED, premise.invalidated_at
    ended = premise.superseded_at
    if ended is not None and ended <= read.known_at and (
            premise.superseded_recorded_at is None
            or premise.superseded_recorded_at <= read.system_at):
        # A new version valid only after the question's valid instant changes nothing then.
        outside = (successor is not None and read.valid_at is not None
                   and successor.valid_from > read.valid_at)
        if not outside:
            return SUPERSEDED, ended
    expires = premise.expires_at
    if expires is not None and expires <= (read.valid_at or read.known_at):
        return EXPIRED, expires
    if read.min_authority is not None and premise.authority < read.min_authority:
        return BELOW_AUTHORITY, None
    return None


def staleness(store: Store, tenant: str, ids: Sequence[str],
              read: ReadInstants) -> dict[str, Stale]:
    """The items of ``ids`` that rest on a premise that stopped holding as of ``read``, each
    with the premise it names (the marked treatment); the others are absent."""
    if not ids:
        return {}
    return store.reading(tenant, lambda tx: decide(tx, ids, read))


def decide(tx: StoreTx, ids: Sequence[str], read: ReadInstants,
           closed: bool = False) -> dict[str, Stale]:
    """:func:`staleness` inside a transaction: one upstream walk, one read of the premises,
    one of their versions."""
    walk = tx.walk(sorted(set(ids)), Direction.UPSTREAM, read.system_at, MAX_DEPTH,
                   types=(USED, GENERATED))
    made: dict[str, set[str]] = {}  # derived fact -> derivations that generated it
    used: dict[str, set[str]] = {}  # derivation -> its inputs
    for e in walk.edges:
        if e.type == GENERATED:
            made.setdefault(e.end, set()).add(e.start)
        elif e.type == USED:
            used.setdefault(e.start, set()).add(e.end)
    upstream = _premises(ids, made, used)
    wanted = sorted({p for found in upstream.values() for p in found})
    if not wanted:
        return {}
    facts = tx.get_facts(sorted(set(wanted) | set(upstream)))
    versions = tx.versions(sorted({facts[p].key for p in wanted if p in facts}))
    verdicts: dict[str, tuple[Fact, str, datetime | None, Fact | None]] = {}
    for pid in wanted:
        if (premise := facts.get(pid)) is None:
            continue
        successor = _successor(premise, versions.get(premise.key, []))
        said = stale_premise(premise, read, successor)
        if said is not None:
            verdicts[pid] = (premise, said[0], said[1], successor)
    out: dict[str, Stale] = {}
    for item, found in upstream.items():
        named = _named(found, verdicts, made)
        if named is not None:
            premise, reason, when, successor = verdicts[named]
            own = facts.get(item)
            out[item] = Stale(item, named, premise.subject, premise.predicate, reason, when,
                              successor.id if successor is not None and reason == SUPERSEDED
                              else None, found[named], closed,
                              own.subject if own else "", own.predicate if own else "")
    return out


def _premises(ids: Sequence[str], made: Mapping[str, set[str]],
              used: Mapping[str, set[str]]) -> dict[str, dict[str, int]]:
    """Per item, every premise upstream of it with its shortest depth."""
    out: dict[str, dict[str, int]] = {}
    for item in ids:
        depth: dict[str, int] = {}
        frontier, n = [item], 0
        while frontier and n < MAX_DEPTH:
            n += 1
            nxt = []
            for fid in frontier:
                for d in sorted(made.get(fid, ())):
                    for p in sorted(used.get(d, ())):
                        if p not in depth and p != item:
                            depth[p] = n
                            nxt.append(p)
            frontier = nxt
        if depth:
            out[item] = depth
    return out


def _named(found: Mapping[str, int], verdicts: Mapping[str, Any],
           made: Mapping[str, set[str]]) -> str | None:
    """The premise a stale item names: the change itself, not a derived fact the cascade closed
    on the way (a premise that is derived and was superseded with no successor of its own), the
    nearest first, ties by id."""
    stale = [p for p in found if p in verdicts]
    if not stale:
        return None
    own = [p for p in stale if not (p in made and verdicts[p][3] is None
                                    and verdicts[p][1] == SUPERSEDED)]
    return min(own or stale, key=lambda p: (found[p], p))


def _successor(premise: Fact, versions: Sequence[Fact]) -> Fact | None:
    """The version of the premise's assertion that closed it: the first later revision known
    from the instant the premise's knowledge ended."""
    if premise.superseded_at is None:
        return None
    later = [v for v in versions if v.revision > premise.revision
             and v.available_at == premise.superseded_at]
    return min(later, key=lambda v: v.revision) if later else None


# The instant just before a closure: a closed fact was legal then.
BEFORE = timedelta(microseconds=1)
