"""JSON encoding of the records that cross the storage boundary (the embedded log's lines).

A sealed fact is sealed here, on its way to the disk, and unsealed on its way back
(``vintage.graph.sealing.sealed``): the in-memory state stays plain, only the log holds ciphertext.
Plain facts are written as before, without a ``sealed`` field. A search entry (``index``) is written
as its fact id, model, terms and vector (base64 of float32 little-endian: a fifth of a JSON list
of floats), and, when its fact is sealed, all but the id sealed under the fact's key."""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from vintage.graph.core.model import DerivationIn, Event, Fact, Source, Subject
from vintage.graph.embedded.entries import Entry, Indexed, Unindexing
from vintage.graph.sealing.sealed import CIPHERTEXT, Sealer
from vintage.graph.store.protocol import (
    Closure,
    Conflict,
    DerivationWrite,
    Erasure,
    Invalidation,
    KnowledgeEnd,
    Reopening,
    Restoration,
    Retraction,
    StoreError,
    Supersession,
    Support,
)

if TYPE_CHECKING:  # numpy is loaded where a vector is packed: most commands move none
    import numpy as np
    import numpy.typing as npt

_DATACLASSES: dict[str, type[Any]] = {
    "support": Support,
    "close": Closure,
    "supersedes": Supersession,
    "invalidate": Invalidation,
    "erase": Erasure,
    "conflicts": Conflict,
    "retract": Retraction,
    "reopen": Reopening,
    "restore": Restoration,
    "knowledge_end": KnowledgeEnd,
    "unindex": Unindexing,
}
_MODELS: dict[str, type[Any]] = {
    "subject": Subject,
    "source": Source,
    "fact": Fact,
    "event": Event,
}


def encode(op: str, record: Any, tenant: str, sealer: Sealer | None = None) -> list[Any]:
    """One operation as a log item; ``sealer`` seals a sealed fact (its keys already created:
    ``Sealer.prepare``). Without one, a fact is written plain."""
    if op == "fact":
        row = record.model_dump(mode="json")
        if not record.sealed:
            del row["sealed"]
        return [op, row if sealer is None else sealer.seal(tenant, row)]
    if op in _MODELS:
        return [op, record.model_dump(mode="json")]
    if op == "index":
        return [op, _entry_row(record, tenant, sealer)]
    if op == "derivation":
        assert isinstance(record, DerivationWrite)
        return [op, {
            "derivation": record.derivation.model_dump(mode="json"),
            "used": [list(u) for u in record.used],
            "generated": list(record.generated),
            "recorded_at": record.recorded_at.isoformat(),
        }]
    # Shallow: these records hold scalars and instants only (asdict would deep-copy each).
    fields = {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}
    return [op, {k: v.isoformat() if isinstance(v, datetime) else v for k, v in fields.items()}]


def decode(item: list[Any], tenant: str, sealer: Sealer | None = None) -> tuple[str, Any]:
    op, payload = item
    if op == "fact" and CIPHERTEXT in payload:
        if sealer is None:
            raise StoreError(f"fact {payload['id']} was written sealed: open the store with its "
                             "key store (vintage.open_store finds the key file)")
        return op, Fact.model_validate(sealer.unseal(tenant, payload))
    if op in _MODELS:
        return op, _MODELS[op].model_validate(payload)
    if op == "index":
        return op, _entry(payload, tenant, sealer)
    if op == "derivation":
        return op, DerivationWrite(
            derivation=DerivationIn.model_validate(payload["derivation"]),
            used=tuple((fid, role) for fid, role in payload["used"]),
            generated=tuple(payload["generated"]),
            recorded_at=datetime.fromisoformat(payload["recorded_at"]),
        )
    cls = _DATACLASSES[op]
    kwargs = {
        f.name: _instant(payload[f.name])
        if f.type in _INSTANTS and payload[f.name] is not None else payload[f.name]
        for f in dataclasses.fields(cls)
    }
    return op, cls(**kwargs)


# The annotations these dataclasses give an instant (text under ``from __future__``); an
# optional one may be null (``KnowledgeEnd``: a knowledge interval open again).
_INSTANTS = ("datetime", datetime, "datetime | None")


def _instant(value: str) -> datetime:
    return datetime.fromisoformat(value)


_ENTRY = "search entry"  # the purpose a sealed entry's ciphertext is bound to


def _entry_row(rec: Indexed, tenant: str, sealer: Sealer | None) -> dict[str, Any]:
    assert rec.entry is not None, "an entry read back without its key is never written"
    e = rec.entry
    body = {"model": e.model, "terms": list(e.terms), "vector": pack_vector(e.vector)}
    if rec.sealed and sealer is not None:
        return {"fact_id": rec.fact_id,
                CIPHERTEXT: sealer.seal_extra(tenant, rec.fact_id, _ENTRY, body)}
    return {"fact_id": rec.fact_id, **body}


def _entry(payload: dict[str, Any], tenant: str, sealer: Sealer | None) -> Indexed:
    fact_id = payload["fact_id"]
    body: dict[str, Any] | None = payload
    if CIPHERTEXT in payload:
        if sealer is None:
            raise StoreError(f"the search entry of fact {fact_id} was written sealed: open the "
                             "store with its key store")
        body = sealer.unseal_extra(tenant, fact_id, _ENTRY, payload[CIPHERTEXT])
    entry = None if body is None else Entry(
        tuple(body["terms"]), unpack_vector(body["vector"]), body["model"])
    return Indexed(fact_id, entry, CIPHERTEXT in payload)


def pack_vector(vector: Sequence[float] | npt.NDArray[np.float32]) -> str:
    """Base64 of the vector as float32, little-endian."""
    import numpy as np

    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def unpack_vector(text: str) -> npt.NDArray[np.float32]:
    import numpy as np

    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(np.float32)
