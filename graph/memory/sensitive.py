"""Sensitive content a memory must not hold without explicit consent.

Every free-text field of a memory write is scanned (``sensitive_write``), keys included: a key
``ssn.123-45-6789`` is as sensitive as the value. A refusal names the category and the field,
never the text. Maintained detectors do the work where they exist (docs/semantics.md,
"Sensitive content"):

* secrets: detect-secrets' format plugins (AWS, GitHub, GitLab, Slack, Stripe, JWT, private
  keys, credentials in URLs, ...), its keyword detector and its entropy measure; two small rules
  of ours where it has none: "my password is X" in prose, and key prefixes it lacks (``sk-...``);
* identifiers: a loose pattern finds candidates and python-stdnum's validator confirms each
  (checksums, birth dates, place codes), so an order number that merely looks like an id passes;
* health data, precise locations, financial account data, named ids and passwords in prose,
  in English and Chinese: ``vintage.graph.memory.personal`` (no maintained detector fits).

The detectors load on first use, so a command that writes no memory does not pay their import.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from vintage.graph.memory.fold import mandarin
from vintage.graph.memory.personal import FINANCE, NAMED_ID, SAID, SEED
from vintage.graph.memory.personal import HEALTH as HEALTH_DATA
from vintage.graph.memory.personal import LOCATION as PRECISE_LOCATION

if TYPE_CHECKING:
    from detect_secrets.plugins.base import RegexBasedDetector

SECRET = "secret (API key, token, password or private key)"
GOVERNMENT_ID = "government identifier"
CARD = "payment card number"
BANK_ACCOUNT = "bank account number (IBAN)"
FINANCIAL = "financial account data (balance or account number)"
HEALTH = "health data"
LOCATION = "precise location"
CATEGORIES = (SECRET, GOVERNMENT_ID, CARD, BANK_ACCOUNT, FINANCIAL, HEALTH, LOCATION)

# Ids a system mints are random by design: the entropy measure would refuse them, so these
# fields get every detector but that one.
MINTED_IDS = frozenset({"tenant", "source_id", "user", "project", "thread"})
ENTROPY_LIMIT = 4.5  # detect-secrets' default for base64-like strings
MIN_TOKEN = 20


def _bounded(body: str, flags: int = 0) -> re.Pattern[str]:
    """A candidate not glued to letters or digits (``.``, ``_``, a space: fine), nor one group
    of a longer grouped number (``5105 1051 0510`` inside a card number)."""
    return re.compile(rf"(?<![0-9A-Za-z])(?<![0-9][ -]){body}(?![0-9A-Za-z])(?![ -][0-9])",
                      flags)


# Loose shapes; the validator beside each decides.
_SSN = _bounded(r"\d{3}-\d{2}-\d{4}")
_CN_RIC = _bounded(r"\d{17}[\dXx]")
# Aadhaar as UIDAI prints it, in groups of four with spaces: its Verhoeff check passes one
# random number in ten, and a dashed 4-4-4 is how order and ticket numbers are written.
_AADHAAR = _bounded(r"[2-9]\d{3} \d{4} \d{4}")
_CPF = _bounded(r"\d{3}\.\d{3}\.\d{3}-\d{2}")
_CODICE_FISCALE = _bounded(r"[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z]", re.IGNORECASE)
_DNI = _bounded(r"\d{8}-?[A-Z]", re.IGNORECASE)
_NIE = _bounded(r"[XYZ]-?\d{7}-?[A-Z]", re.IGNORECASE)
_NIR = _bounded(r"[12] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}", re.IGNORECASE)
_SIN = _bounded(r"\d{3}[ -]\d{3}[ -]\d{3}")
_RRN = _bounded(r"\d{6}-\d{7}")
_NINO = _bounded(r"[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]", re.IGNORECASE)
# Cards and IBANs may run on into what follows (``_shortened``). Card networks' first digits
# run from 2 to 6.
_CARD = re.compile(r"(?<![0-9A-Za-z])(?<![0-9][ -])[2-6]\d{3}(?:[ -]?\d){9,18}(?![0-9A-Za-z])")
# A card number split otherwise than by single spaces or dashes (a tab, a line break, dots,
# slashes, underscores, commas, spaced separators: ``4111.1111.1111.1111``, ``4111 - 1111 ...``):
# read only in the grouping a
# card is printed with (4-4-4-4, 4-6-5), one separator throughout, from a card network's own
# first digits (Visa, Mastercard, Amex, Discover, JCB, UnionPay), so that a column of years or a
# dotted version number is left alone.
_SPLIT_CARD = re.compile(r"(?<![0-9A-Za-z])(\d{4})([ ./_,-])(\d{4,6})\2(\d{4,5})"
                         r"(?:\2(\d{1,4}))?(?![0-9A-Za-z])")
# Between digits: white space around a separator dropped (``4111 / 1111``), any other run of
# white space read as one space.
_SEPARATOR_GAP = re.compile(r"(?<=\d)\s*([./_,-])\s*(?=\d)")
_DIGIT_GAP = re.compile(r"(?<=\d)\s+(?=\d)")
_NETWORK = re.compile(r"4|5[1-5]|222[1-9]|22[3-9]|2[3-6]|27[01]|2720|3[47]|6011|65|64[4-9]|62"
                      r"|35(?:2[89]|[3-8])")
_IBAN = re.compile(r"(?<![0-9A-Za-z])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{1,4}){3,8}(?![0-9A-Za-z])")
_NOT_LETTER = re.compile(r"[^A-Za-z]")
# Key formats detect-secrets 1.5 lacks (OpenAI's and Anthropic's ``sk-``, Google's ``AIza``).
_PREFIXED = re.compile(r"\b(?:sk|pk|rk)[-_](?:live|test|proj|ant)?[-_]?[A-Za-z0-9_-]{16,}"
                       r"|\bAIza[0-9A-Za-z_-]{35}")
_TOKEN = re.compile(rf"[A-Za-z0-9+/_=-]{{{MIN_TOKEN},}}")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_DIGIT, _LETTER = re.compile(r"\d"), re.compile(r"[A-Za-z]")
_HAN_FIRST = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_HAN_GAP = re.compile(r"(?<=[\u3400-\u9fff])[ \t]+(?=[0-9A-Za-z])"
                      r"|(?<=[0-9A-Za-z])[ \t]+(?=[\u3400-\u9fff])")

class _Checked(NamedTuple):
    category: str
    candidates: re.Pattern[str]
    valid: Callable[[str], bool]


@cache
def _validated() -> tuple[_Checked, ...]:
    from stdnum import luhn
    from stdnum.br import cpf
    from stdnum.ca import sin
    from stdnum.cn import ric
    from stdnum.es import dni, nie
    from stdnum.fr import nir
    from stdnum.in_ import aadhaar
    from stdnum.it import codicefiscale
    from stdnum.kr import rrn
    from stdnum.us import ssn

    def card(text: str) -> bool:
        return _shortened(text, 13, lambda n: len(n) <= 19 and luhn.is_valid(n))

    ids = ((_SSN, ssn.is_valid), (_CN_RIC, ric.is_valid), (_AADHAAR, aadhaar.is_valid),
           (_CPF, cpf.is_valid), (_CODICE_FISCALE, codicefiscale.is_valid),
           (_DNI, dni.is_valid), (_NIE, nie.is_valid), (_NIR, nir.is_valid),
           (_SIN, sin.is_valid), (_RRN, rrn.is_valid), (_NINO, _nino))
    return (*(_Checked(GOVERNMENT_ID, p, v) for p, v in ids), _Checked(CARD, _CARD, card),
            _Checked(BANK_ACCOUNT, _IBAN, _iban))


def _nino(text: str) -> bool:
    """A UK National Insurance number's shape (python-stdnum has no validator for it): the
    prefixes HMRC never issues are refused."""
    compact = text.replace(" ", "").upper()
    return compact[:2] not in {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"}


def _shortened(text: str, shortest: int, valid: Callable[[str], bool]) -> bool:
    """A grouped candidate may run on into what follows (an expiry ``12 27``, a currency
    ``EUR``): try it whole, then without its last groups, down to ``shortest`` characters."""
    groups = re.split(r"[ -]", text)
    while groups and len(compact := "".join(groups)) >= shortest:
        if valid(compact):
            return True
        groups.pop()
    return False


def _iban(text: str) -> bool:
    from stdnum import iban

    return _shortened(text, 15, iban.is_valid)  # the shortest IBANs (Norway's) have 15


@cache
def _formats() -> tuple[RegexBasedDetector, ...]:
    """detect-secrets' format plugins, every one it ships but public IP addresses (an address
    is not a secret)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.ip_public import IPPublicDetector

    shipped: list[type] = list(get_mapping_from_secret_type_to_class().values())
    return tuple(cls() for cls in shipped
                 if issubclass(cls, RegexBasedDetector) and cls is not IPPublicDetector)


def _placeholder(secret: str) -> bool:
    """``${DB_PASSWORD}``, ``{{ token }}``, ``None``: a reference to a secret, not one."""
    from detect_secrets.filters.heuristic import (
        is_prefixed_with_dollar_sign,
        is_templated_secret,
    )

    return (is_templated_secret(secret) or is_prefixed_with_dollar_sign(secret)
            or secret.lower() in {"none", "null", "nil", "empty", "redacted"})


def _keyword(text: str, *, assignment: bool = False) -> list[str]:
    """The values detect-secrets' keyword detector finds: quoted ones in prose (``password =
    "x"``); with ``assignment``, any value after a secret's name (``password: x``)."""
    from detect_secrets.plugins.keyword import (
        CONFIG_DENYLIST_REGEX_TO_GROUP,
        QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
        KeywordDetector,
    )

    rules = CONFIG_DENYLIST_REGEX_TO_GROUP if assignment else \
        QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP
    return [v.strip() for v in KeywordDetector().analyze_string(text, rules)
            if v.strip() and not _placeholder(v.strip())]


def _named_by_key(key: str, value: str) -> bool:
    """A value stored under a key that names a secret (``wifi.password``, ``bank.pin``) is
    that secret, whatever it reads like: the key and the value read as one ``key: value``
    line, and what the keyword rules find after the name is the whole value."""
    line = f"{key}: {value}"
    return value.strip() in {*_keyword(line, assignment=True),
                             *(m["v"] for m in SAID.finditer(line))}


def _said(text: str) -> bool:
    for match in SAID.finditer(text):
        value = match["v"].rstrip(".,;:!?)")
        # "我的密码是什么来着": a Chinese sentence goes on after 是, not a password
        if _placeholder(value) or (not match["q"] and _HAN_FIRST.match(value)):
            continue
        if (match["q"] and value) or (len(value) >= 4 and _NOT_LETTER.search(value)):
            return True
    return False


def _high_entropy(text: str) -> bool:
    """A long token of letters and digits as random as a key (detect-secrets' base64 entropy
    over its limit), outside URLs, not a UUID nor a run like ``ABCDEF...``. A bare hex digest
    never reaches the limit (four bits a character at most): commits and hashes pass."""
    from detect_secrets.filters.heuristic import is_potential_uuid, is_sequential_string
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    tokens = [t for t in _TOKEN.findall(_URL.sub(" ", text))
              if _DIGIT.search(t) and _LETTER.search(t)]
    if not tokens:
        return False
    measure = Base64HighEntropyString(limit=ENTROPY_LIMIT)
    return any(measure.calculate_shannon_entropy(t) > ENTROPY_LIMIT
               and not is_potential_uuid(t) and not is_sequential_string(t) for t in tokens)


def _secret(text: str, *, minted: bool = False) -> bool:
    return (any(next(iter(p.analyze_string(text)), None) for p in _formats())
            or bool(_PREFIXED.search(text)) or _said(text) or bool(SEED.search(text))
            or bool(_keyword(text)) or (not minted and _high_entropy(text)))


def _split_card(text: str) -> bool:
    from stdnum import luhn

    for m in _SPLIT_CARD.finditer(_DIGIT_GAP.sub(" ", _SEPARATOR_GAP.sub(r"\1", text))):
        digits = "".join(g for g in m.group(1, 3, 4, 5) if g)
        if 13 <= len(digits) <= 19 and _NETWORK.match(digits) and luhn.is_valid(digits):
            return True
    return False


def _identifiers(text: str) -> list[str]:
    found = [c.category for c in _validated()
             if any(c.valid(m.group()) for m in c.candidates.finditer(text))]
    if CARD not in found and _split_card(text):
        found.insert(found.index(BANK_ACCOUNT) if BANK_ACCOUNT in found else len(found), CARD)
    if GOVERNMENT_ID not in found and NAMED_ID.search(text):
        found.append(GOVERNMENT_ID)
    return found


def sensitive_categories(text: str, *, minted: bool = False) -> list[str]:
    """The categories of sensitive content found in ``text`` (empty: none), in the order of
    ``CATEGORIES``. ``minted``: the text is an id a system made (no entropy measure). Read
    after NFKC and without invisible characters, so full-width digits (``１３８``, common in
    Chinese input) and a zero-width space inside a number change nothing; traditional Chinese
    is read as simplified (``護照號碼`` as ``护照号码``), written Cantonese as Mandarin."""
    text = unicodedata.normalize("NFKC", text)
    text = mandarin("".join(c for c in text if unicodedata.category(c) != "Cf"))
    found = set(_identifiers(text))
    # Chinese sets a space around a number in Han text ("漕溪北路 398 号"): typography, not
    # a boundary the prose patterns should see
    prose = _HAN_GAP.sub("", text)
    if _secret(text, minted=minted):
        found.add(SECRET)
    if HEALTH_DATA.search(prose):
        found.add(HEALTH)
    if FINANCE.search(prose):
        found.add(FINANCIAL)
    if PRECISE_LOCATION.search(prose):
        found.add(LOCATION)
    return [c for c in CATEGORIES if c in found]


def _texts(fields: Mapping[str, object]) -> Iterable[tuple[str, str]]:
    """Every free-text field of a write: strings, and an integer value (a card number may
    arrive as one); enumerations (kind, source kind) are the engine's own words."""
    for name, value in fields.items():
        if isinstance(value, str) and not isinstance(value, Enum):
            yield name, value
        elif name == "value" and isinstance(value, int) and not isinstance(value, bool):
            yield name, str(value)


def sensitive_fields(fields: Mapping[str, object]) -> dict[str, list[str]]:
    """For a memory write's fields (name to value), the sensitive categories found in each
    (only the fields where something was found). A value stored under a key that names a
    secret (``wifi.password``) is that secret, whatever it reads like."""
    found = {name: cats for name, text in _texts(fields)
             if (cats := sensitive_categories(text, minted=name in MINTED_IDS))}
    key, value = fields.get("key"), fields.get("value")
    if isinstance(key, str) and isinstance(value, str | int) and not isinstance(value, bool) \
            and SECRET not in found.get("value", []) and _named_by_key(key, str(value)):
        found["value"] = [c for c in CATEGORIES if c in {SECRET, *found.get("value", [])}]
    return found


def sensitive_write(fields: Mapping[str, object]) -> str | None:
    """What a refusal says of a write's sensitive content (``government identifier in key``),
    naming categories and fields, never the text; None when there is none."""
    found = sensitive_fields(fields)
    if not found:
        return None
    by_category = {c: [f for f, cats in found.items() if c in cats] for c in CATEGORIES}
    return "; ".join(f"{c} in {', '.join(fs)}" for c, fs in by_category.items() if fs)


def withheld(text: str) -> str:
    """``text``, or a placeholder naming what it holds when it is sensitive: what an audit
    event carries of a subject or key, so that a refused write leaves no copy there."""
    found = sensitive_categories(text, minted=True)
    return f"(withheld: {', '.join(found)})" if found else text
