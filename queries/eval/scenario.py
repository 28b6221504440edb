"""The scenario format (docs/eval.md): what a scenario file holds, read and checked whole.

A file is YAML: one scenario (a mapping) or several (a list, or a mapping with ``scenarios:``).
Every field is checked here, before anything is written, so that a mistake in a user's file is
one line naming the file, the scenario and the field, and no store is touched. The format is
stable: fields are only ever added, with defaults that keep older files meaning what they meant.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from vintage.graph.core.kinds import Risk, SourceKind, authority_named
from vintage.graph.memory.gate import Decision, MemoryKind
from vintage.queries.metrics.definitions import resolve_metric
from vintage.queries.metrics.periods import parse_period
from vintage.queries.search.fusion import Mode

FAMILIES = (
    "isolation", "correction", "never-provided", "past-instant", "exact-code", "retraction",
    "erasure", "self-echo", "retry-duplicate-concurrent", "poisoning", "sensitive", "expiry",
    "cascading-staleness", "false-stale", "premise-resistance", "restatement",
    "not-yet-public", "ltm-windows", "event-time", "authority",
)
LANGUAGES = ("en", "zh")
FIRST_STEP = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)  # when a scenario's first step has no `at`
STEP_GAP = timedelta(minutes=1)  # between steps (and asks) that give no `at`


class Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class Principal(Strict):
    """Who acts or asks: an actor name and the scope keys it reads or writes in."""

    actor: str = "agent"
    user: str | None = None
    project: str | None = None
    thread: str | None = None


class SourceRef(Strict):
    kind: SourceKind = SourceKind.USER_MESSAGE
    id: str | None = None  # default: the step's name (one message, one source)
    version: str | None = None
    tool: str | None = None  # a tool_result's tool (default: its id; vintage.graph.memory.tools)


class WriteExpect(Strict):
    """What a write should come to (the write layer)."""

    decision: Decision | None = None
    # After every step of the scenario ran: does the written memory answer for its key?
    kept: bool | None = None


class StepBase(Strict):
    name: str | None = None  # how asks and later steps refer to what this step wrote
    at: datetime | None = None
    principal: Principal = Field(default_factory=Principal, alias="as")
    expect: WriteExpect | None = None


class Remember(StepBase):
    op: Literal["remember"]
    # A user's own statement by default (a business fact needs a versioned document or tool)
    kind: MemoryKind = MemoryKind.PREFERENCE
    subject: str
    key: str
    value: Any
    source: SourceRef = Field(default_factory=SourceRef)
    observed_at: datetime | None = None  # default: the step's instant
    ttl: int | None = None
    # Event time (default: from the observed time, open): "moved there in March 2025".
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    consent: bool = False
    evidence: tuple[str, ...] = ()  # names of earlier steps (an inference's premises)
    repeat: int = Field(1, ge=1, le=20)  # the same event delivered again (duplicates)
    retry: bool = False  # the first attempt's answer is lost, the client sends it again
    concurrent: bool = False  # run at once with the steps next to it that say so too


class Correct(StepBase):
    op: Literal["correct"]
    target: str  # a step's name
    value: Any
    source: SourceRef = Field(default_factory=SourceRef)
    valid_from: datetime | None = None  # default: the corrected version's event time
    valid_to: datetime | None = None


class Invalidate(StepBase):
    op: Literal["invalidate"]
    target: str


class Forget(StepBase):
    op: Literal["forget"]
    target: str | None = None  # a memory (a step's name) ...
    source: str | None = None  # ... or a source id
    reason: str = "erasure requested"


class Retract(StepBase):
    op: Literal["retract"]
    source: str
    reason: str = "retracted"


class Rollback(StepBase):
    op: Literal["rollback"]
    to: datetime
    reason: str = "rolled back"


class Register(StepBase):
    op: Literal["register"]
    source: str  # a document source, or a tool's name (kind tool_result)
    kind: SourceKind = SourceKind.DOCUMENT
    version: str | None = None  # a tool's: only this version (default: every version)
    reporters: tuple[str, ...] = ()  # a tool's: the actors that may report for it


class Ingest(StepBase):
    """Rows of the facts table (``vintage ingest facts``: docs/cli.md), written as one file; or
    a facts-table file (CSV or JSON lines), its path relative to the scenario file."""

    op: Literal["ingest"]
    rows: tuple[dict[str, Any], ...] = ()
    file: Path | None = None
    recompute: bool = False

    @model_validator(mode="after")
    def _rows_or_file(self) -> Ingest:
        if bool(self.rows) == (self.file is not None):
            raise ValueError("an ingest step gives rows or a file, one of them")
        return self


class Summarise(StepBase):
    """``vintage summarise``: a derived summary of the subject's memories in the scope."""

    op: Literal["summarise"]
    subject: str


class Context(StepBase):
    """A context built mid-scenario (so that a later ``echo`` can repeat it)."""

    op: Literal["context"]
    query: str
    budget: int = Field(600, ge=1)


class Echo(StepBase):
    """The agent writes a context's text back as a memory of its own (must not be re-learned)."""

    op: Literal["echo"]
    of: str  # a context step's name
    subject: str
    key: str
    kind: MemoryKind = MemoryKind.PREFERENCE


class Used(StepBase):
    """The agent marks items of a context as used (``vintage used``): what ``health`` reads."""

    op: Literal["used"]
    of: str  # a context step's name
    items: tuple[str, ...] = Field(min_length=1)  # step names whose versions it used


Step = Annotated[Remember | Correct | Invalidate | Forget | Retract | Rollback | Register | Ingest
                 | Context | Echo | Used | Summarise, Field(discriminator="op")]


class AskExpect(Strict):
    value: Any = None
    any_of: tuple[Any, ...] | None = None
    refusal: bool = False  # nothing relevant is known: the right answer is "I don't know"
    conflict: bool = False  # both sides of an open conflict handed over, no side picked
    include: tuple[str, ...] = ()  # step names: must be among the legal candidates
    exclude: tuple[str, ...] = ()  # step names: never a candidate, never handed over
    absent_text: tuple[str, ...] = ()  # strings the handed text must not contain
    stale: str | None = None  # the answer must be flagged stale, naming this premise (a step)
    # How: "closed" (the cascade closed the item and the read says so, naming the premise) or
    # "marked" (the item is handed over marked stale, naming it); None: either.
    treatment: Literal["closed", "marked"] | None = None
    not_stale: bool = False  # nothing handed over may be flagged stale
    max_tokens: int | None = None

    def answers(self) -> tuple[Any, ...] | None:
        """The accepted values (None: the expectation names no value)."""
        if self.any_of is not None:
            return self.any_of
        return None if self.value is None else (self.value,)


class Ask(Strict):
    id: str
    principal: Principal = Field(default_factory=Principal, alias="as")
    at: datetime | None = None
    query: str = Field(min_length=1)
    subject: str | None = None  # what the deterministic answer rule looks for (answer.py)
    key: str | None = None
    period: tuple[datetime, datetime] | None = None  # a financial figure's valid window
    # A financial question (``vintage asof``): a metric or concept over a fiscal period, asked of
    # the whole engine as its metric question; the other rungs answer from their context.
    metric: str | None = None
    metric_period: str = "LTM"  # FY2024, FY2024Q4, LTM or START..END (docs/cli.md)
    cutoff: datetime | None = None
    valid_at: datetime | None = None
    system_at: datetime | None = None
    budget: int = Field(600, ge=1)
    mode: Mode | None = None  # how the whole engine ranks (default hybrid); the rungs below fix it
    # The authority the question requires (an Authority's name), or its risk (low, medium,
    # high): asked of every engine rung, since a risk is the question's, not a retrieval's.
    min_authority: str | None = None
    risk: Risk | None = None
    expect: AskExpect

    @field_validator("min_authority")
    @classmethod
    def _known_authority(cls, name: str | None) -> str | None:
        if name is not None:
            authority_named(name)  # a UserError (ValueError) naming the authorities there are
        return name

    @field_validator("metric")
    @classmethod
    def _known_metric(cls, metric: str | None) -> str | None:
        if metric is not None:
            resolve_metric(metric)  # a UserError (ValueError) naming the metrics there are
        return metric

    @field_validator("metric_period")
    @classmethod
    def _known_period(cls, period: str) -> str:
        parse_period(period)
        return period


class Scenario(Strict):
    id: str = Field(min_length=1, max_length=120)
    family: str
    language: Literal["en", "zh"]
    description: str = ""
    steps: tuple[Step, ...] = ()
    asks: tuple[Ask, ...] = Field(min_length=1)

    @field_validator("family")
    @classmethod
    def _known_family(cls, family: str) -> str:
        if not family.strip():
            raise ValueError("a family names what the scenario probes")
        return family

    def timeline(self) -> tuple[list[datetime], list[datetime]]:
        """Each step's and each ask's instant: given, or one ``STEP_GAP`` after the previous."""
        at = FIRST_STEP - STEP_GAP
        steps, asks = [], []
        for s in self.steps:
            at = _utc(s.at) if s.at is not None else at + STEP_GAP
            steps.append(at)
        for a in self.asks:
            at = _utc(a.at) if a.at is not None else at + STEP_GAP
            asks.append(at)
        return steps, asks


def _utc(at: datetime) -> datetime:
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)
