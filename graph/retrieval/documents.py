"""What text describes a fact version: the words search embeds, and the terms it indexes.

A **memory** (a fact written in a user, project or thread scope:
``vintage.graph.sealing.sealed.sealed_in``) is described by what it says: its key, read as words
(``refund_policy`` as "refund policy"), and its value. A **business fact** (tenant-wide: SEC
filings, tables) holds a number that no query repeats, so it is described by what it is about, in
the words an analyst types: the subject's name and identifiers (ticker, CIK), the concept in words
(``us-gaap:OperatingIncomeLoss`` as "Operating Income Loss"), the period in words ("Q1 2018 first
quarter 2018 January to March 2018 three months ended March 31, 2018", "FY2018 fiscal year 2018 ...
year ended December 31, 2018", "as of 2018-03-31 March 31, 2018"), the unit, and a text value if it
has one.

The terms are ``vintage.graph.retrieval.terms.terms`` of that text, followed by the exact
identifiers that the text does not already carry: the subject's id and identifiers, the predicate
whole, and the ids and accession numbers of the sources that supported the fact when it was indexed.
An identifier goes in as ``terms.identifiers`` spells it, so that a query naming it (``E4031``,
``cik:0001652044``, ``0001652044-18-000052``) matches it exactly.

A business fact's text is embedded as two parts, its *what* (subject, concept, unit, a text
value) and its *when* (the period in words), and its vector is the normalised sum of theirs
(``vintage.graph.retrieval.indexer``): a company's facts repeat a few hundred concepts over a few
hundred periods, so indexing them costs about that many model calls rather than one per fact. A
memory is one text: its key and value say one thing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache

from vintage.graph.core.model import Fact, Scope, Source, Subject
from vintage.graph.retrieval.terms import identifiers, terms
from vintage.graph.sealing.sealed import sealed_in

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|$)|[A-Z]?[a-z]+|\d+|[A-Z]+")
_KEY_JOINERS = re.compile(r"[_.]+")
# A business fact's parts and identifiers repeat across a company's facts (a few hundred
# concepts and periods), and a search describes every candidate again to count identifiers:
# their terms are kept per text (``describe`` says which texts may be).
_SHARED_TEXTS = 65_536
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_ORDINALS = ("first", "second", "third", "fourth")
_ONE_DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class Document:
    parts: tuple[str, ...]  # what is embedded: the vector is the normalised sum of the parts'
    terms: tuple[str, ...]  # what is indexed for keywords and exact identifiers, in order
    shared: bool  # the parts are shared across facts (a business fact's): worth caching

    @property
    def text(self) -> str:
        return " ".join(self.parts)


def is_memory(fact: Fact) -> bool:
    """A fact of a user, project or thread scope (sealed), rather than a tenant-wide one."""
    return _sealed(fact.tenant, fact.scope)


@lru_cache(maxsize=_SHARED_TEXTS)
def _sealed(tenant: str, scope: tuple[str, ...]) -> bool:
    # Kept by scope terms (ids, never a memory's words): a search asks it of every candidate,
    # and building the validated Scope each time was a tenth of a filing question's Python.
    return sealed_in(Scope.from_terms(tenant, list(scope)))


def describe(fact: Fact, subject: Subject | None, sources: Sequence[Source]) -> Document:
    """The document of one fact version, given its subject (None: not stored) and the sources
    supporting it."""
    memory = is_memory(fact)
    parts = (memory_text(fact),) if memory else business_parts(fact, subject)
    # Only a business fact's vocabulary is kept by the term cache: never a memory's words, a
    # text value, or a source's ids (an erasure leaves no copy of them in the process).
    cached = not memory and not _value_text(fact)
    found, about = _vocabulary(fact.subject, fact.predicate, subject, parts, cached)
    cited = [identifiers(v) for v in _cited(sources)]
    return Document(parts, _with_identifiers(found, [*about, *cited]), shared=not memory)


def carried(fact: Fact, subject: Subject | None, sources: Sequence[Source],
            wanted: frozenset[str]) -> int:
    """How many of ``wanted`` (identifiers as ``terms.identifiers`` spells them) are among
    ``describe(fact, subject, sources).terms``: a search counts them on every candidate. A
    source's id or accession is tokenised only when one it may carry is in it: an identifier
    is a span of the text lowercased, so it is a substring of the text folded the same way."""
    return carried_among(own_terms(fact, subject), sources, wanted) if wanted else 0


def carried_among(own: frozenset[str], sources: Sequence[Source],
                  wanted: frozenset[str]) -> int:
    """``carried``, given the fact's ``own_terms``: a search counts both the query's
    identifiers and its terms on each candidate, and tokenises its text once for the two."""
    if not wanted:
        return 0
    have = wanted & own
    for value in _cited(sources):
        missing = wanted - have
        if not missing:
            break
        folded = unicodedata.normalize("NFKC", value).lower()
        if any(w in folded for w in missing):
            have |= missing.intersection(identifiers(value))
    return len(have)


def _vocabulary(name: str, predicate: str, subject: Subject | None, parts: Sequence[str],
                cached: bool) -> tuple[list[str], list[Sequence[str]]]:
    """The terms of ``parts``, and the identifiers of the subject and the predicate."""
    split, named = (_shared_terms, _shared_identifiers) if cached else (terms, identifiers)
    found = [t for part in parts for t in split(part)]
    about: list[Sequence[str]] = [named(v) for v in (name, *(subject.identifiers if subject
                                                             else ()), predicate)]
    return found, about


def _cited(sources: Sequence[Source]) -> list[str]:
    return [*(s.id for s in sources), *(s.accession for s in sources if s.accession)]


def own_terms(fact: Fact, subject: Subject | None) -> frozenset[str]:
    """The terms of ``fact``'s document less its sources' identifiers. A business fact's
    are kept by what they depend on, as its parts' are (never a memory's or a text value's):
    a search counts them on the same few hundred concepts and periods again and again."""
    if is_memory(fact) or _value_text(fact):
        return frozenset(describe(fact, subject, ()).terms)
    return _business_terms(fact.subject, fact.predicate, fact.unit, fact.valid_from,
                           fact.valid_to, subject)


@lru_cache(maxsize=_SHARED_TEXTS)
def _business_terms(name: str, predicate: str, unit: str | None, start: datetime,
                    end: datetime | None, subject: Subject | None) -> frozenset[str]:
    parts = _business_parts(name, predicate, unit, "", start, end, subject)
    found, about = _vocabulary(name, predicate, subject, parts, True)
    return frozenset(found).union(*about)


@lru_cache(maxsize=_SHARED_TEXTS)
def _shared_terms(text: str) -> tuple[str, ...]:
    return tuple(terms(text))


@lru_cache(maxsize=_SHARED_TEXTS)
def _shared_identifiers(text: str) -> tuple[str, ...]:
    return tuple(identifiers(text))


def memory_text(fact: Fact) -> str:
    key = " ".join(_KEY_JOINERS.split(fact.predicate)).strip()
    return f"{key}: {_value_text(fact)}" if _value_text(fact) else key


def business_parts(fact: Fact, subject: Subject | None) -> tuple[str, str]:
    """(what, when): the subject, concept, unit and a text value; the period in words."""
    return _business_parts(fact.subject, fact.predicate, fact.unit, _value_text(fact),
                           fact.valid_from, fact.valid_to, subject)


def _business_parts(name: str, predicate: str, unit: str | None, text: str, start: datetime,
                    end: datetime | None, subject: Subject | None) -> tuple[str, str]:
    who = subject_words(subject) if subject is not None else name
    what = [who, concept_words(predicate), unit or "", text]
    return " ".join(p for p in what if p), period_words(start, end)


def subject_words(subject: Subject) -> str:
    """``Alphabet Inc. GOOGL CIK 0001652044``: the name, then the ticker and CIK as typed."""
    named = [subject.name or subject.id, subject.id]
    for ident in sorted(subject.identifiers, key=lambda i: not i.startswith("ticker:")):
        scheme, _, code = ident.partition(":")
        named.append(code if scheme == "ticker" else f"{scheme.upper()} {code}" if code else ident)
    return " ".join(dict.fromkeys(named))


def concept_words(predicate: str) -> str:
    """``us-gaap:OperatingIncomeLoss`` -> ``Operating Income Loss`` (the taxonomy is left out:
    it is in the terms as part of the whole identifier)."""
    local = predicate.rpartition(":")[2]
    words = [w for piece in re.split(r"[^A-Za-z0-9]+", local) for w in _CAMEL.findall(piece)]
    return " ".join(words) or predicate


def period_words(start: datetime, end: datetime | None) -> str:
    """A valid period as it is said: an instant, a quarter, a half, nine months, a year (by the
    calendar, the quarter or half that holds most of it), else its first and last days. A
    period of a filing is also named by its last day, as the filing's own columns name it
    ("three months ended July 26, 2020", "as of March 31, 2018"): a fiscal quarter is asked
    about that way, and its calendar name alone would not carry the day."""
    if end is None:
        return f"from {start.date().isoformat()}"
    first, last = start.date(), (end - _ONE_DAY).date()
    days = (last - first).days + 1
    if days <= 1:
        return f"as of {first.isoformat()} {_day(first)}"
    middle = first + timedelta(days=days // 2)
    months = f"{_month(first, last)} to {_MONTHS[last.month - 1]} {last.year}"
    ended = f"ended {_day(last)}"
    if 80 <= days <= 100:
        q = (middle.month - 1) // 3 + 1
        return f"Q{q} {middle.year} {_ORDINALS[q - 1]} quarter {middle.year} {months} " \
               f"three months {ended}"
    if 170 <= days <= 190:
        h = 1 if middle.month <= 6 else 2
        return f"H{h} {middle.year} {('first', 'second')[h - 1]} half {middle.year} six months " \
               f"{months} {ended}"
    if 260 <= days <= 285:
        return f"nine months {months} {ended}"
    if 350 <= days <= 380:
        return f"FY{last.year} fiscal year {last.year} {months} year {ended}"
    return f"from {first.isoformat()} to {last.isoformat()}"


def _day(day: date) -> str:
    return f"{_MONTHS[day.month - 1]} {day.day}, {day.year}"


def _month(first: date, last: date) -> str:
    name = _MONTHS[first.month - 1]
    return name if first.year == last.year else f"{name} {first.year}"


def _value_text(fact: Fact) -> str:
    return fact.value if isinstance(fact.value, str) else ""


def _with_identifiers(found: list[str], exact: Iterable[Sequence[str]]) -> tuple[str, ...]:
    """``found`` followed by the identifiers of ``exact`` (each value's, in order) it does not
    hold yet, each once (a repeat would raise the term's frequency in BM25 for nothing)."""
    have = set(found)
    extra = [i for named in exact for i in named if i not in have]
    return (*found, *dict.fromkeys(extra))
