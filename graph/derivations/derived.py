"""Derived facts: a recipe applied to named input facts, persisted with its lineage.

``Derivation -[:USED {role}]-> input`` and ``Derivation -[:GENERATED]-> output`` (W3C PROV
shape). A derived fact is knowable once all its inputs are and stops being current as soon as
one of them is corrected (docs/contract.md, "Knowledge time of derived facts"): its knowledge
interval is ``[max(inputs.available_at), min(inputs.superseded_at))``.

Identity. The derivation id hashes the recipe and the exact inputs, so the same computation twice
is one derivation. The derived fact's id hashes its assertion key, value and ``available_at``,
so a second derivation that reaches the same value from inputs known at the same time adds a
second justification to the same fact instead of a duplicate. A sealed fact's id hashes the
derivation instead of the value (``vintage.graph.sealing.sealed``); a second derivation reaching the
value current since earlier still finds it among the versions, by the hash held in memory.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from vintage.graph.core.kinds import FactKind, Status
from vintage.graph.core.labels import FACT, SUBJECT
from vintage.graph.core.model import Event, Fact, Scope, Value, assertion_key, digest, new_event_id
from vintage.graph.derivations.recipes import Recipe
from vintage.graph.sealing.sealed import sealed_in
from vintage.graph.store.protocol import (
    Closure,
    DerivationWrite,
    Direction,
    Store,
    StoreError,
    StoreTx,
    Supersession,
    UnknownReference,
)


class CycleError(StoreError):
    """A derivation whose output would (transitively) be one of its own inputs."""


class MixedVintage(StoreError):
    """Inputs that were never known together: no instant at which all of them were current."""


@dataclass(frozen=True)
class Output:
    """What the derived fact is about; its value comes from the recipe."""

    subject: str
    predicate: str
    valid_from: datetime
    valid_to: datetime | None
    unit: str | None = None
    status: Status = Status.ACTIVE


@dataclass(frozen=True)
class Derived:
    fact: Fact
    derivation_id: str
    created: bool  # False: the derivation already existed (an idempotent repeat)


def derive(
    store: Store, scope: Scope, recipe: Recipe, inputs: Mapping[str, str], output: Output,
    *, actor: str, replaces: str | None = None, cause: str | None = None,
) -> Derived:
    """Compute ``recipe`` over ``inputs`` (role -> fact id) and persist the result.

    ``replaces`` names an earlier derived version this one corrects (recompute), linked
    ``SUPERSEDES`` with ``cause`` (the source or derivation that made it necessary)."""
    return store.write(scope.tenant, lambda tx: derive_in(
        tx, store.now(), scope, recipe, inputs, output, actor=actor, replaces=replaces,
        cause=cause))


def _checked_inputs(tx: StoreTx, requests: Sequence[Request]) -> dict[str, Fact]:
    wanted = {fid for r in requests for fid in r.inputs.values()}
    facts = tx.get_facts(sorted(wanted))
    missing = wanted - set(facts)
    if missing:
        raise UnknownReference(f"unknown input fact(s): {', '.join(sorted(missing)[:5])}")
    subjects = {r.output.subject for r in requests}
    unknown = subjects - tx.existing(SUBJECT, sorted(subjects))
    if unknown:
        raise UnknownReference(f"unknown subject: {min(unknown)}")
    return facts


def _end_among(
    versions: list[Fact], key: str, available: datetime,
    end: tuple[datetime, datetime] | None, now: datetime,
) -> tuple[datetime, datetime] | None:
    """Where a derived version's knowledge ends among the assertion's other versions; a
    derived fact never overrides raw evidence."""
    raw = [v for v in versions if v.kind is not FactKind.DERIVED]
    if raw:
        raise StoreError(f"assertion {key} holds raw evidence ({raw[-1].kind.value}): a derived "
                         "fact never overrides it")
    later = [v.available_at for v in versions if v.available_at > available]
    if later and (end is None or min(later) < end[0]):
        # A historical value computed late: it ends where the next known version begins.
        return (min(later), now)
    return end


@dataclass(frozen=True)
class Request:
    """One derivation to persist: ``recipe`` over ``inputs`` (role -> fact id) into ``output``,
    optionally correcting the earlier derived version ``replaces`` (linked with ``cause``)."""

    scope: Scope
    recipe: Recipe
    inputs: Mapping[str, str]
    output: Output
    replaces: str | None = None
    cause: str | None = None

    @property
    def key(self) -> str:
        o = self.output
        return assertion_key(self.scope, o.subject, o.predicate, o.valid_from, o.valid_to, o.unit)


def derive_in(
    tx: StoreTx, now: datetime, scope: Scope, recipe: Recipe, inputs: Mapping[str, str],
    output: Output, *, actor: str, replaces: str | None = None, cause: str | None = None,
    check_cycles: bool = True,
) -> Derived:
    (done,) = derive_all(tx, now, [Request(scope, recipe, inputs, output, replaces, cause)],
                         actor=actor, check_cycles=check_cycles)
    return done


def derive_all(
    tx: StoreTx, now: datetime, requests: Sequence[Request], *, actor: str,
    check_cycles: bool = True,
) -> list[Derived]:
    """Persist each request with one round trip per kind of read or write for all of them (a
    recompute derives a level of 10,000 facts at once). Each is decided against the versions
    stored before its round: two requests of one assertion go in successive rounds."""
    check_requests(requests)
    keys = [r.key for r in requests]
    if len(set(keys)) < len(keys):
        done_in: dict[int, Derived] = {}
        for part in rounds(keys):
            done_in.update(zip(part, derive_all(tx, now, [requests[n] for n in part],
                                                actor=actor, check_cycles=check_cycles),
                               strict=True))
        return [done_in[n] for n in range(len(requests))]
    derivations = [r.recipe.derivation(r.inputs, k) for r, k in zip(requests, keys, strict=True)]
    done = tx.generated_by([d.id for d in derivations])  # one round trip for the common repeat
    todo = [n for n, d in enumerate(derivations) if d.id not in done]
    facts = _checked_inputs(tx, [requests[n] for n in todo]) if todo else {}
    if check_cycles:
        for n in todo:
            _refuse_cycles(tx, keys[n], {i: facts[i] for i in requests[n].inputs.values()}, now)
    versions = tx.versions([keys[n] for n in todo]) if todo else {}
    planned = {n: _planned(requests[n], keys[n], derivations[n].id, facts,
                           versions.get(keys[n], []), now) for n in todo}
    found = tx.get_facts([p.fact_id for p in planned.values()]) if planned else {}
    fresh_keys = [keys[n] for n, p in planned.items() if p.fact_id not in found]
    tops = tx.top_revisions(fresh_keys) if fresh_keys else {}
    made, new = {}, set()
    for n, p in planned.items():
        existing = p.existing(found, versions.get(keys[n], []))
        made[n] = existing or p.fact(versions.get(keys[n], []), tops, now)
        if existing is None:
            new.add(n)
    tx.create_facts([made[n] for n in todo if n in new])
    _close_open_predecessors(tx, [(versions.get(keys[n], []), made[n], derivations[n].id)
                                  for n in todo if n in new], now)
    tx.link_supersedes([Supersession(made[n].id, old, requests[n].cause or derivations[n].id,
                                     made[n].available_at, now)
                        for n in todo
                        if (old := requests[n].replaces) is not None and old != made[n].id])
    tx.put_derivations(*(DerivationWrite(
        derivations[n], tuple(sorted((fid, role) for role, fid in requests[n].inputs.items())),
        (made[n].id,), now) for n in todo))
    tx.append_events(*(Event(
        id=planned[n].event_id, tenant=requests[n].scope.tenant, at=now, actor=actor,
        action="derive", details={"derivation": derivations[n].id,
                                  "recipe": requests[n].recipe.name, "fact": made[n].id,
                                  "new_fact": n in new}) for n in todo))
    return [Derived(done[d.id], d.id, created=False) if d.id in done
            else Derived(made[n], d.id, created=True) for n, d in enumerate(derivations)]


def found_all(tx: StoreTx, requests: Sequence[Request]) -> list[Derived] | None:
    """What ``derive_all`` returns when every request's derivation exists already (a repeat,
    which writes nothing), by one read, so a read transaction can answer it; None when one does
    not exist yet (``derive_all`` has something to write)."""
    check_requests(requests)
    ids = [r.recipe.derivation(r.inputs, r.key).id for r in requests]
    done = tx.generated_by(ids)
    return None if any(i not in done for i in ids) else [Derived(done[i], i, False) for i in ids]


def check_requests(requests: Sequence[Request]) -> None:
    for r in requests:
        if not r.inputs:
            raise StoreError("a derivation needs at least one input fact")
        r.recipe.check_roles(set(r.inputs))


def rounds(keys: Sequence[str]) -> list[list[int]]:
    """Positions of ``keys`` in rounds of distinct keys: the first of each key in the first,
    a second of one in the second, and so on, each round in order."""
    found: list[list[int]] = []
    seen: Counter[str] = Counter()
    for n, key in enumerate(keys):
        seen[key] += 1
        if len(found) < seen[key]:
            found.append([])
        found[seen[key] - 1].append(n)
    return found


@dataclass(frozen=True)
class _Planned:
    """A derived fact decided before any write: its value, interval and id."""

    request: Request
    key: str
    inputs: list[Fact]
    value: Value
    available: datetime
    end: tuple[datetime, datetime] | None
    content: str
    sealed: bool
    fact_id: str
    event_id: str

    def existing(self, found: Mapping[str, Fact], versions: list[Fact]) -> Fact | None:
        return found.get(self.fact_id) or next(
            # The same value already current since earlier: another justification of that
            # fact, not a second current version of one assertion.
            (v for v in reversed(versions) if v.superseded_at is None
             and v.content_hash == self.content and v.available_at <= self.available), None)

    def fact(self, versions: list[Fact], tops: Mapping[str, int], now: datetime) -> Fact:
        o, scope = self.request.output, self.request.scope
        return Fact(
            id=self.fact_id, key=self.key,
            revision=max([*(v.revision for v in versions), tops.get(self.key, 0), 0]) + 1,
            tenant=scope.tenant, scope=tuple(scope.terms()), kind=FactKind.DERIVED,
            status=o.status, subject=o.subject, predicate=o.predicate, value=self.value,
            unit=o.unit, valid_from=o.valid_from, valid_to=o.valid_to,
            available_at=self.available,
            superseded_at=self.end[0] if self.end else None,
            superseded_recorded_at=self.end[1] if self.end else None,
            recorded_at=now, invalidated_at=None,
            authority=min(f.authority for f in self.inputs), owner=None,
            retention_reason=None, content_hash=self.content, event_id=self.event_id,
            sealed=self.sealed,
        )


def _planned(r: Request, key: str, derivation_id: str, facts: Mapping[str, Fact],
             versions: list[Fact], now: datetime) -> _Planned:
    inputs = {role: facts[fid] for role, fid in r.inputs.items()}
    value = r.recipe.evaluate({role: f.value for role, f in inputs.items()})
    available, end = _knowledge(list(inputs.values()))
    end = _end_among(versions, key, available, end, now)
    content = digest(type(value).__name__, value, r.output.unit)
    sealed = sealed_in(r.scope) or any(f.sealed for f in inputs.values())
    return _Planned(r, key, list(inputs.values()), value, available, end, content, sealed,
                    derived_fact_id(key, derivation_id, value, r.output.unit, available, sealed),
                    new_event_id())


def derived_fact_id(key: str, derivation_id: str, value: Value, unit: str | None,
                    available: datetime, sealed: bool) -> str:
    """The id a new derived fact gets. Ids are stored in clear: a sealed fact's hashes its
    derivation, not its value (a summary "gift.wrap: yes" would reverse by dictionary)."""
    ident = derivation_id if sealed else digest(type(value).__name__, value, unit)
    return f"{key}.d{digest(ident, available.isoformat())[:12]}"


def _knowledge(inputs: list[Fact]) -> tuple[datetime, tuple[datetime, datetime] | None]:
    """``available_at`` and the (superseded_at, recorded) end of a derived fact's interval."""
    available = max(f.available_at for f in inputs)
    ends = [(f.superseded_at, f.superseded_recorded_at or f.recorded_at, f) for f in inputs
            if f.superseded_at is not None]
    if not ends:
        return available, None
    at, recorded, first = min(ends, key=lambda e: e[0])
    if at <= available:
        raise MixedVintage(
            f"inputs were never current together: {first.predicate} of {first.subject} "
            f"({first.id}) was superseded at {at.isoformat()}, before the last input became "
            f"public at {available.isoformat()}")
    return available, (at, recorded)


def _refuse_cycles(tx: StoreTx, key: str, inputs: Mapping[str, Fact], now: datetime) -> None:
    upstream = tx.walk(sorted(inputs), Direction.UPSTREAM, now, 256).ids(FACT)
    keys = {f.key for f in inputs.values()} | {
        f.key for f in tx.get_facts(sorted(upstream)).values()}
    if key in keys:
        raise CycleError(f"assertion {key} would depend on itself through its inputs")


def _close_open_predecessors(
    tx: StoreTx, made: Sequence[tuple[list[Fact], Fact, str]], now: datetime,
) -> None:
    """An open earlier version with another value stops being current when this one starts
    (per new fact: its assertion's versions, the fact, the derivation that caused it)."""
    closes, links = [], []
    for versions, fact, cause in made:
        for old in versions:
            if (old.superseded_at is None and old.available_at <= fact.available_at
                    and old.content_hash != fact.content_hash and old.id != fact.id):
                closes.append(Closure(old.id, fact.available_at, now))
                links.append(Supersession(fact.id, old.id, cause, fact.available_at, now))
    tx.close_knowledge(closes)
    tx.link_supersedes(links)
