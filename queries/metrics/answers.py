"""The answer to an as-of metric question, as data (``vintage asof --json`` prints it)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from vintage.graph.core.model import Fact, Source, Value
from vintage.queries.lineage.staleness import Stale
from vintage.queries.metrics.basis import restated
from vintage.queries.metrics.fiscal import Span


class InputFact(BaseModel):
    """A filed fact the answer rests on, with the filing that first reported it."""

    model_config = ConfigDict(frozen=True)

    id: str
    predicate: str
    period: str
    value: Value
    unit: str | None
    accession: str | None
    form: str | None
    available_at: datetime
    change: str | None  # how this version differs from the one before it, if it is a revision
    # A restated figure (an amended quarter, a restated year; a correction nobody classified
    # counts as one): the answer's other inputs are as last reported (docs/semantics.md).
    restated: bool = False

    @classmethod
    def of(cls, fact: Fact, source: Source | None) -> InputFact:
        assert fact.valid_to is not None
        return cls(
            id=fact.id, predicate=fact.predicate,
            period=str(Span.from_valid(fact.valid_from, fact.valid_to)), value=fact.value,
            unit=fact.unit, accession=source.accession or source.id if source else None,
            form=source.form if source else None, available_at=fact.available_at,
            change=fact.change.value if fact.change else None, restated=restated(fact),
        )


class SubjectAnswer(BaseModel):
    model_config = ConfigDict(frozen=True)

    subject: str
    value: Value | None = None
    unit: str | None = None
    period: str | None = None  # the window's name: FY2024, FY2024Q4, LTM to FY2025Q2, ...
    span: str | None = None  # its first and last day
    method: str | None = None  # reported, sum of four quarters, fiscal year - 9 months YTD, ...
    fact_id: str | None = None  # the answer's fact: filed, or derived and persisted
    derivation_id: str | None = None  # the last derivation (None: the value was filed as is)
    derivations: list[str] = []
    periods_used: list[str] = []
    inputs: list[InputFact] = []
    warnings: list[str] = []  # what was known at the cutoff about this answer, nothing later
    refused: str | None = None  # why there is no value
    # What became known after the cutoff (revisions of the inputs): only when asked for
    # (None: not asked), never in ``warnings`` and never in an agent's context.
    hindsight: list[str] | None = None
    # A derived answer whose premise, at any depth, stopped holding as of the question's
    # cutoff and now (an answer on an earlier basis rests on a figure since restated): the
    # premise, when and by what (docs/semantics.md, "Staleness"); None: nothing stale.
    stale: Stale | None = None


class MetricAnswer(BaseModel):
    model_config = ConfigDict(frozen=True)

    metric: str
    description: str
    cutoff: datetime
    period: str
    answers: list[SubjectAnswer]
