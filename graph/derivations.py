"""Derived facts: a recipe applied to named input facts, persisted with its lineage.

``Derivation -[:USED {role}]-> input`` and ``Derivation -[:GENERATED]-> output`` (W3C PROV
shape). A derived fact is knowable once all its inputs are and stops being current as soon as
one of them is corrected (docs/contract.md, "Knowledge time of derived facts"): its knowledge
interval is ``[max(inputs.available_at), min(inputs.superseded_at))``.

Identity. The derivation id hashes the recipe and the exact inputs, so the same computation twice
is one derivation. The derived fact's id hashes its assertion key, value and ``available_at``,
so a second derivation that reaches the same value from inputs known at the same time adds a
second justification to the same fact instead of a duplicate. A sealed fact's id hashes the
derivation instead of the value (``graph.sealing``); a second derivation reaching the value
current since earlier still finds it among the versions, by the hash held in memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from graph.kinds import FactKind, Status
from graph.labels import FACT, SUBJECT
from graph.model import Event, Fact, Scope, assertion_key, digest, new_event_id
from graph.recipes import Recipe
from graph.sealing import sealed_in
from graph.store import (
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


def _checked_inputs(tx: StoreTx, inputs: Mapping[str, str], output: Output) -> dict[str, Fact]:
    facts = tx.get_facts(sorted(set(inputs.values())))
    missing = set(inputs.values()) - set(facts)
    if missing:
        raise UnknownReference(f"unknown input fact(s): {', '.join(sorted(missing)[:5])}")
    if not tx.existing(SUBJECT, [output.subject]):
        raise UnknownReference(f"unknown subject: {output.subject}")
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


def derive_in(
    tx: StoreTx, now: datetime, scope: Scope, recipe: Recipe, inputs: Mapping[str, str],
    output: Output, *, actor: str, replaces: str | None = None, cause: str | None = None,
    check_cycles: bool = True,
) -> Derived:
    if not inputs:
        raise StoreError("a derivation needs at least one input fact")
    recipe.check_roles(set(inputs))
    key = assertion_key(scope, output.subject, output.predicate, output.valid_from,
                        output.valid_to, output.unit)
    derivation = recipe.derivation(inputs, key)
    done = tx.generated_by([derivation.id])  # one round trip for the common repeat
    if done:
        (fact,) = done.values()
        return Derived(fact, derivation.id, created=False)
    facts = _checked_inputs(tx, inputs, output)
    if check_cycles:
        _refuse_cycles(tx, key, facts, now)
    value = recipe.evaluate({role: facts[fid].value for role, fid in inputs.items()})
    available, end = _knowledge(list(facts.values()))
    versions = tx.versions([key]).get(key, [])
    end = _end_among(versions, key, available, end, now)
    event_id = new_event_id()
    content = digest(type(value).__name__, value, output.unit)
    sealed = sealed_in(scope) or any(f.sealed for f in facts.values())
    # An id is stored in clear everywhere: a sealed fact's hashes its derivation, not its value
    # (a summary "gift.wrap: yes" would reverse by dictionary); an equal value is found below.
    ident = derivation.id if sealed else content
    fact_id = f"{key}.d{digest(ident, available.isoformat())[:12]}"
    existing = tx.get_facts([fact_id]).get(fact_id) or next(
        # The same value already current since earlier: another justification of that fact,
        # not a second current version of one assertion.
        (v for v in reversed(versions) if v.superseded_at is None
         and v.content_hash == content and v.available_at <= available), None)
    fact = existing or Fact(
        id=fact_id, key=key, revision=max([*(v.revision for v in versions),
                                           *tx.top_revisions([key]).values(), 0]) + 1,
        tenant=scope.tenant, scope=tuple(scope.terms()), kind=FactKind.DERIVED,
        status=output.status, subject=output.subject, predicate=output.predicate, value=value,
        unit=output.unit, valid_from=output.valid_from, valid_to=output.valid_to,
        available_at=available,
        superseded_at=end[0] if end else None,
        superseded_recorded_at=end[1] if end else None,
        recorded_at=now, invalidated_at=None,
        authority=min(f.authority for f in facts.values()), owner=None,
        retention_reason=None, content_hash=content, event_id=event_id, sealed=sealed,
    )
    if existing is None:
        tx.create_facts([fact])
        _close_open_predecessors(tx, versions, fact, now, derivation.id)
    if replaces is not None and replaces != fact.id:
        tx.link_supersedes([Supersession(fact.id, replaces, cause or derivation.id,
                                         fact.available_at, now)])
    used = tuple(sorted((fid, role) for role, fid in inputs.items()))
    tx.put_derivation(DerivationWrite(derivation, used, (fact.id,), now))
    tx.append_event(Event(
        id=event_id, tenant=scope.tenant, at=now, actor=actor, action="derive",
        details={"derivation": derivation.id, "recipe": recipe.name, "fact": fact.id,
                 "new_fact": existing is None},
    ))
    return Derived(fact, derivation.id, created=True)


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
            f"public at {available.isoformat()}"
        )
    return available, (at, recorded)


def _refuse_cycles(tx: StoreTx, key: str, inputs: Mapping[str, Fact], now: datetime) -> None:
    upstream = tx.walk(sorted(inputs), Direction.UPSTREAM, now, 256).ids(FACT)
    keys = {f.key for f in inputs.values()} | {
        f.key for f in tx.get_facts(sorted(upstream)).values()}
    if key in keys:
        raise CycleError(f"assertion {key} would depend on itself through its inputs")


def _close_open_predecessors(
    tx: StoreTx, versions: list[Fact], fact: Fact, now: datetime, cause: str,
) -> None:
    """An open earlier version with another value stops being current when this one starts."""
    for old in versions:
        if (old.superseded_at is None and old.available_at <= fact.available_at
                and old.content_hash != fact.content_hash and old.id != fact.id):
            tx.close_knowledge([Closure(old.id, fact.available_at, now)])
            tx.link_supersedes([Supersession(fact.id, old.id, cause, fact.available_at, now)])
