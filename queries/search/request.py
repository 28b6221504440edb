"""What a search asks and what it answers, and the legal set it reads.

A :class:`SearchRequest` is checked (:func:`check`) and becomes one as-of spec, the legal set
(:func:`legal_spec`; ``vintage.queries.search.run``'s docstring, step 1), narrowed for a
two-stage search to the facts of a period and a filing form (:func:`two_stage_ids`). The
answer is a :class:`SearchResult` of :class:`Found` items, each a legal fact with its sources.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from vintage.graph.core.asof import AsOf
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.exclusion import AUTHORITY
from vintage.graph.core.kinds import Authority, FactKind, Status
from vintage.graph.core.limits import blank, required
from vintage.graph.core.model import Scope, Source, Value
from vintage.graph.core.temporal import Interval, all_time, as_of
from vintage.graph.store.protocol import Store
from vintage.queries.lineage.staleness import Stale
from vintage.queries.lineage.subjects import resolve_subjects
from vintage.queries.lineage.views import SourceView
from vintage.queries.search.abstain import Verdict
from vintage.queries.search.checks import Checked
from vintage.queries.search.fusion import Mode

MAX_LIMIT = 1000
MAX_QUERY_CHARS = 2000
_PERIOD = re.compile(r"(\d{4})(?:[Qq]([1-4]))?")


@dataclass(frozen=True)
class SearchRequest:
    query: str
    scope: Scope  # fail-closed: names a user, project or thread unless all_scopes
    mode: Mode = Mode.HYBRID
    subjects: tuple[str, ...] | None = None  # ids, CIKs or tickers (queries.lineage.subjects)
    kinds: tuple[FactKind, ...] | None = None
    cutoff: datetime | None = None  # knowledge cutoff (default now)
    valid_at: datetime | None = None  # default: module docstring
    system_at: datetime | None = None  # default now
    limit: int = 10
    candidates: bool = False
    all_scopes: bool = False  # a tenant-wide read: explicit, audited (actor required)
    actor: str | None = None
    form: str | None = None  # two-stage: a source form (10-Q, 10-K)
    period: str | None = None  # two-stage: a calendar year or quarter ('2018', '2018Q1')
    # The least authority an item needs (--min-authority, or a risk's): decided in the legal
    # set (``AsOf.min_authority``); what holds less is excluded with that reason. It is also
    # the authority a premise must keep for what rests on it not to be stale (None: any):
    # queries.lineage.staleness.
    min_authority: Authority | None = None


@dataclass(frozen=True)
class Found:
    id: str
    subject: str
    predicate: str
    value: Value
    unit: str | None
    status: str
    kind: str
    score: float
    signals: dict[str, float]  # search.fusion: exact, keyword, semantic, recency, ...
    sources: tuple[SourceView, ...]
    valid: tuple[datetime, datetime | None]
    knowledge: tuple[datetime, datetime | None]  # as known at the cutoff: no hindsight
    conflicts_with: tuple[str, ...]  # the other sides of its conflict set, shown with it
    rank: int  # its position among ``considered``, from 1
    stale: Stale | None = None  # the premise it rests on that stopped holding, if any
    # ``sources`` are its inputs' (a derived figure or a summary cites none of its own).
    sources_via_inputs: bool = False


@dataclass(frozen=True)
class SearchResult:
    query: str
    mode: Mode
    results: tuple[Found, ...]
    considered: tuple[Found, ...]  # every fused candidate after the checks, best first
    legal: int  # items in the legal set
    matched: int  # items within the read's scope the query's terms matched, legal or not
    excluded: dict[str, int]  # of ``matched``: hard-filter reason -> count (core.exclusion)
    depth: int = 0  # how many of each leg's best were fused (``fusion.deep_enough``)
    rescored: int = 0  # candidates cut legs were asked for by id at the final depth (``_rescore``)
    # What the cascade closed that the read would have matched, each naming its premise.
    closed: tuple[Stale, ...] = ()
    required: Authority | None = None  # the read's minimum authority (``min_authority``)
    # Whether anything relevant was found (``search.abstain``); when not, ``results`` is empty
    # and ``considered`` still lists what was ranked (the trace's).
    verdict: Verdict | None = None

    @property
    def refusal(self) -> str | None:
        """When a read required an authority and nothing holds it: what was missing (never
        which values were left out). Something ranked holds it, relevant or not."""
        return authority_refusal(self.required, bool(self.considered),
                                 self.excluded.get(AUTHORITY, 0))

    @property
    def nothing_relevant(self) -> bool:
        """Judged, and nothing relevant (not a keyword search that shared no term with any
        item: that cannot be judged, ``Verdict.matched``)."""
        return self.verdict is not None and self.verdict.nothing_relevant


def authority_refusal(required: Authority | None, answered: bool, below: int) -> str | None:
    """The refusal of a read that required ``required`` and found nothing holding it;
    ``below``: how many matching items held less."""
    if required is None or answered:
        return None
    return (f"nothing here holds the authority this read requires: {authority_words(required)}"
            + (f" ({below} matching item{'s' if below != 1 else ''} held less and "
               f"{'were' if below != 1 else 'was'} left out)" if below else ""))


def authority_words(required: Authority) -> str:
    return f"{required.name.lower()} or above"


def found(c: Checked, rank: int, stale: Stale | None = None,
          inputs: Sequence[Source] = ()) -> Found:
    """The answer's view of a checked candidate, at its rank among the considered;
    ``inputs``: the sources its inputs cite, shown when it cites none of its own."""
    f = c.fact
    via_inputs = not c.sources and bool(inputs)
    return Found(
        id=f.id, subject=f.subject, predicate=f.predicate, value=f.value, unit=f.unit,
        status=f.status.value, kind=f.kind.value, score=c.scored.score,
        signals=dict(c.scored.signals),
        sources=tuple(SourceView.of(s) for s in (inputs if via_inputs else c.sources)),
        valid=(f.valid_from, f.valid_to), knowledge=(f.available_at, f.superseded_at),
        conflicts_with=c.conflicts_with, rank=rank, stale=stale, sources_via_inputs=via_inputs)



def legal_spec(store: Store, request: SearchRequest) -> AsOf:
    """The request's as-of spec, resolved against the store's clock (module docstring)."""
    now = store.now()
    known = request.cutoff or now
    if request.valid_at is not None and request.period is not None:
        raise InvalidArgument("give a valid instant or a period, not both")
    valid: Interval
    if request.valid_at is not None:
        valid = as_of(request.valid_at)
    elif request.period is not None:
        valid = Interval(*calendar_period(request.period))
    else:
        valid = as_of(known) if request.scope.keys else all_time()
    statuses = {Status.ACTIVE, Status.CONFLICTED} | ({Status.CANDIDATE} if request.candidates
                                                     else set())
    subjects = (None if request.subjects is None else
                tuple(resolve_subjects(store, request.scope.tenant, request.subjects)))
    shared = not request.scope.keys and not request.all_scopes
    return AsOf(request.scope, known_at=known, valid=valid,
                system_at=request.system_at or now, statuses=frozenset(statuses),
                subjects=subjects, kinds=request.kinds, shared_only=shared,
                unexpired_at=known, min_authority=request.min_authority).resolved(now)


def check(request: SearchRequest) -> None:
    """A request any store would refuse, refused before the store is asked."""
    if not isinstance(request.mode, Mode):
        raise InvalidArgument(f"mode {str(request.mode)[:40]!r}: use one of "
                              f"{', '.join(m.value for m in Mode)}")
    if blank(request.query):
        raise InvalidArgument("a search needs a query: words, a code or a key")
    required(request.query, "the query")  # a context keeps its query (its trace): no NUL
    if len(request.query) > MAX_QUERY_CHARS:
        raise InvalidArgument(f"a query is at most {MAX_QUERY_CHARS} characters")
    if not 1 <= request.limit <= MAX_LIMIT:
        raise InvalidArgument(f"a search returns 1 to {MAX_LIMIT} results, not {request.limit}")
    if request.subjects is not None and not request.subjects:
        raise InvalidArgument("name at least one subject, or none to search them all")
    if request.kinds is not None and not request.kinds:
        raise InvalidArgument("name at least one kind, or none to search them all")
    if request.period is not None:
        calendar_period(request.period)
    if request.form is not None and not request.form.strip():
        raise InvalidArgument("a form names a filing type, such as 10-Q or 10-K")


def calendar_period(text: str) -> tuple[datetime, datetime]:
    """``2018`` or ``2018Q1`` as a half-open window of UTC instants."""
    m = _PERIOD.fullmatch(text.strip())
    if m is None:
        raise InvalidArgument(f"period {text[:40]!r}: give a calendar year (2018) or quarter "
                              "(2018Q1)")
    year, quarter = int(m.group(1)), m.group(2)
    if quarter is None:
        return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
    q = int(quarter)
    start = datetime(year, 3 * q - 2, 1, tzinfo=UTC)
    end = datetime(year + (q == 4), 1 if q == 4 else 3 * q + 1, 1, tzinfo=UTC)
    return start, end


def two_stage_ids(store: Store, spec: AsOf, form: str | None,
                  period: str | None) -> tuple[str, ...]:
    """Stage one of a two-stage search: the legal facts of ``spec`` whose valid period lies in
    ``period`` and that a source of ``form`` supports at the cutoff (case aside). Ranking then
    runs over these ids only."""
    window = calendar_period(period) if period is not None else None
    wanted = form.strip().casefold() if form is not None else None
    keep = []
    for f, cited in store.read_cited(spec):
        if window is not None and not (window[0] <= f.valid_from and f.valid_to is not None
                                       and f.valid_to <= window[1]):
            continue
        if wanted is not None and not any((s.form or "").casefold() == wanted for s in cited):
            continue
        keep.append(f.id)
    return tuple(sorted(keep))
