"""The one tokenisation rule set of keyword search: both backends index and query these terms.

A text becomes terms this way (docs/retrieval.md):

1. Unicode NFKC (full-width ``Ｅ４０３１`` is ``E4031``), then spans are cut: runs of letters and
   digits, joined by any of ``_ . : / -`` (so ``us-gaap:OperatingIncomeLoss`` and
   ``0001652044-19-000015`` are one span each; a trailing full stop is not part of a span) or
   by an apostrophe (``don't``; a possessive ``'s`` is dropped: ``GOOGL's`` is ``GOOGL``).
2. A span is an **identifier** when it is ASCII letters and digits only (besides the joiners)
   and contains a digit, a colon or an underscore, or a dot between two letters or digits with
   a part of two characters or more (``shipping.preference``, ``constraint.currency``, a host
   name; not an abbreviation such as ``e.g.``), or is an all-uppercase word of two letters or
   more as written (error codes ``E4031``, tickers ``GOOGL``, accession numbers, concept names,
   keys such as ``refund_policy``). An identifier is kept whole, lowercased and never stemmed,
   so it matches exactly; it is followed by its parts.
3. Parts: the span split on its joiners and on camelCase (``OperatingIncomeLoss`` is operating,
   income, loss), casefolded; a small English stop-word list is dropped; the rest is stemmed
   with the Snowball English stemmer (PyStemmer), so "refunds" finds "refund" and "operating
   income" finds the concept. A one-part identifier whose part is the identifier itself
   (``GOOGL``, ``2018``) is emitted once, so its term frequency is not doubled.
4. Chinese (a run of Han characters) is written without spaces, so it is cut into character
   n-grams of one to ``MAX_GRAM`` characters (every one, in order of where it starts): no
   dictionary, nothing to load, and a name or product no dictionary knows is still found.
   ``用户希望退款`` holds ``退款``, and so does a query of it; a run is cut from the letters
   and digits next to it (``E4031错误`` is ``e4031`` and ``错误``'s grams). A query's run of at
   most ``MAX_GRAM`` characters is itself one of the grams and is also an **identifier**: the
   exact leg finds the items that hold it as written, as it finds ``E4031`` (a longer run is a
   sentence, whose grams go to BM25 only). No stemming or casefolding applies to Han. A query's
   grams (``query_terms``) skip its function words (他们, 什么, 的, …: ``_CHINESE_STOP``), as
   English drops its stop words; an entry keeps every gram.

Order is kept and duplicates too (BM25 counts term frequency). No term is empty or holds
whitespace: backends join terms with spaces for a whitespace analyzer (Neo4j's Lucene index).
``RULES`` names this rule set: an index entry records it (``vintage.graph.retrieval.index``), so
that entries cut by older rules are indexed again.
"""

from __future__ import annotations

import re
import threading
import unicodedata

import Stemmer

# Bumped whenever the rules above change what a text's terms are: entries made under another
# name are stale (docs/retrieval.md, "Keyword terms: one set of rules for both backends").
RULES = "terms-2"
MAX_GRAM = 4  # Chinese words are mostly one to four characters
# Chinese function words: pronouns, question words and particles, longest first. A question
# is full of them ("他们的代码编辑器是什么外观") and so are memories ("联系他们"): their grams
# matched every memory that said "they" and outranked the one meant (bench/notes/
# issue40-chinese.md). They are cut out of a query's grams only: an entry keeps every gram, so
# that the exact leg still finds any word as written, 目的 included.
_CHINESE_STOP = re.compile("|".join(sorted((
    "他们", "她们", "它们", "我们", "你们", "咱们", "什么", "哪里", "哪儿", "哪个", "哪些",
    "怎么样", "怎么", "怎样", "如何", "为什么", "多少", "是否", "这个", "那个", "这些",
    "那些", "一个",
    "的", "了", "是", "在", "和", "与", "或", "吗", "呢", "吧", "啊", "也", "都", "就", "把",
    "被", "给", "对", "他", "她", "它", "我", "你", "谁", "哪", "这", "那", "有",
    "要", "会", "能", "之", "其", "而",
), key=len, reverse=True)))
# Han ideographs: the unified block, extensions A to H and the compatibility block (NFKC maps
# most compatibility forms into the unified block first).
_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_HAN_RUN = re.compile(f"[{_HAN}]+")
# Letters and digits of any script (``\w`` less the underscore), joined by runs of joiners or
# by one apostrophe (a word such as "don't" stays one word for the stemmer).
_SPAN = re.compile(r"[^\W_]+(?:(?:[_.:/\-]+|')[^\W_]+)*")
_POSSESSIVE = ("'s", "'S")
_JOINERS = re.compile(r"[_.:/\-]+")
_ASCII_SPAN = re.compile(r"[A-Za-z0-9]+(?:[_.:/\-]+[A-Za-z0-9]+)*")
# A dotted key (``shipping.preference``): a dot between two letters or digits, and some part
# longer than one character, so that "e.g." and "i.e." stay words.
_DOTTED = re.compile(r"[A-Za-z0-9]\.[A-Za-z0-9]")
_LONG_PART = re.compile(r"[A-Za-z0-9]{2}")
_MARKED = re.compile(r"[0-9:_]")  # a digit, colon or underscore makes an ASCII span an identifier
_LOWER = re.compile(r"[a-z]")
_TWO_CAPITALS = re.compile(r"[A-Z][^A-Z]*[A-Z]")
_PLAIN = re.compile(r"[a-z]+")
# Between a lowercase letter and an uppercase one, and before the last capital of a run that
# starts a word: ``OperatingIncomeLoss`` -> Operating|Income|Loss, ``HTTPServer`` -> HTTP|Server.
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")

# Short on purpose: words that carry no meaning in a query about facts or memories. Negations
# ("no", "not") stay: they change what a memory says.
STOP_WORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "did", "do", "does", "for",
    "from", "had", "has", "have", "if", "in", "into", "is", "it", "its", "of", "on", "or", "such",
    "that", "the", "their", "then", "there", "these", "they", "this", "those", "to", "was",
    "were", "will", "with", "what", "which", "who", "whom", "how", "about",
))

_local = threading.local()  # a PyStemmer stemmer is not safe to share between threads


def _stem(word: str) -> str:
    stemmer: Stemmer.Stemmer | None = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = Stemmer.Stemmer("english")
    stemmed: str = stemmer.stemWord(word)
    return stemmed or word


def _is_identifier(span: str) -> bool:
    """Rule 2, by regular expressions: a search tokenises every candidate's text, and this is
    asked of every span (a per-character loop was half of the time)."""
    if not _ASCII_SPAN.fullmatch(span):
        return False
    if _MARKED.search(span):
        return True
    if _DOTTED.search(span) and _LONG_PART.search(span):
        return True
    return _LOWER.search(span) is None and _TWO_CAPITALS.search(span) is not None


def _words(span: str) -> list[str]:
    """The span's parts as stemmed words, stop words dropped."""
    if _PLAIN.fullmatch(span):  # most spans: one lowercase word, nothing to split or fold
        return [] if span in STOP_WORDS else [_stem(span)]
    found = []
    for piece in _JOINERS.split(span):
        for part in _CAMEL.split(piece):
            word = part.casefold()
            if word and word not in STOP_WORDS:
                found.append(_stem(word))
    return found


def _grams(run: str, query: bool = False) -> list[tuple[str, bool]]:
    """Every n-gram of the Han ``run``, one to ``MAX_GRAM`` characters, by where it starts; a
    run short enough to be one of them is also whole (an identifier). A ``query``'s grams are
    those of the run's pieces between its function words (``CHINESE_STOP``), the whole run
    first when it is an identifier."""
    if not query:
        return [(g, len(g) == len(run) <= MAX_GRAM) for g in _all_grams(run)]
    whole = [(run, True)] if len(run) <= MAX_GRAM else []
    return whole + [(g, False) for piece in _CHINESE_STOP.split(run) if piece
                    for g in _all_grams(piece) if g != run]


def _all_grams(run: str) -> list[str]:
    return [run[i:i + n] for i in range(len(run)) for n in range(1, MAX_GRAM + 1)
            if i + n <= len(run)]


def _tokens(text: str, query: bool = False) -> list[tuple[str, bool]]:
    """(term, is it a whole identifier) for each term of ``text``, in order (as a query's:
    Chinese function words dropped from the grams)."""
    found: list[tuple[str, bool]] = []
    folded = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    # A Han run is a span of its own, whatever touches it: spaces around it cut it from a code
    # or word written against it, as Chinese writes them.
    for match in _SPAN.finditer(_HAN_RUN.sub(r" \g<0> ", folded)):
        span = match.group()
        if _HAN_RUN.fullmatch(span):
            found += _grams(span, query)
            continue
        # "GOOGL's" is GOOGL: the possessive would hide the identifier (and the stemmer drops it).
        span = span[:-2] if span.endswith(_POSSESSIVE) else span
        parts = _words(span)
        if _is_identifier(span):
            whole = span.lower()
            found.append((whole, True))
            if parts == [whole]:
                continue
        found += [(p, False) for p in parts]
    return found


def terms(text: str) -> list[str]:
    """The terms of ``text`` (module docstring), in order, duplicates kept."""
    return [term for term, _ in _tokens(text)]


def query_terms(text: str) -> list[str]:
    """The terms a search asks the keyword leg for: ``terms``, but a Chinese run's grams are
    cut between its function words (module docstring, 4)."""
    return [term for term, _ in _tokens(text, query=True)]


def identifiers(text: str) -> list[str]:
    """The whole identifiers of ``text`` as they appear among its terms, each once, in order."""
    return list(dict.fromkeys(term for term, whole in _tokens(text) if whole))
