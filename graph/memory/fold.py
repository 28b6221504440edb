"""How the gates read text: the views of one text that obfuscation cannot hide from.

An instruction can be disguised without changing what a model reads: full-width or
mathematical letters (``ｙｏｕ ａｒｅ ｎｏｗ``), Cyrillic or Greek look-alikes (``іgnоrе``),
zero-width or other invisible characters inside a word, accents, leetspeak (``1gn0r3``),
letters spaced apart (``i g n o r e``, ``忽 略 以 上``). Each view undoes some of that, so
a detector matches a small set of patterns against every view instead of listing every
disguise:

* ``plain``: Unicode NFKC (full-width and compatibility forms), every format character
  (category Cf: zero-width spaces and joiners, bidi controls, soft hyphens) dropped, combining
  marks dropped, look-alike letters folded to the Latin letter they imitate (Unicode's
  confusables data, through confusable-homoglyphs, Latin targets only, so Chinese is
  untouched), lower case, common Cantonese words read as Mandarin (睇 as 看, 冇 as 没) and
  traditional Chinese characters written as simplified ones (OpenCC),
  one space per run, no space between two CJK characters (Chinese does not space its words,
  so spacing one out changes nothing);
* ``leet``: ``plain`` with digits and symbols that stand for letters read as those letters,
  inside words that also hold a letter (``pr3v10us``), so a price or a count is left alone;
* ``joined``: ``plain`` with runs of single letters spaced or dotted apart (``i g n o r e``)
  joined, and, when such a run was found, the whole text without spaces (``ignoreall...``),
  matched by the detectors' compact patterns only;
* ``unwrapped``: each view above with line breaks that end no sentence read as spaces (an
  instruction broken over lines), when the text has any;
* ``decoded``: the ``plain`` text of each run of base64 in it that decodes to text (a model
  decodes base64 it is handed, so an instruction hidden that way is still read);
* ``reversed``: the ``plain`` text backwards, when the text asks for something to be read
  backwards (``backwards``, ``reverse``, 倒过来, 反着): a model can follow such a request.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Callable
from functools import cache

_CJK = r"\u2e80-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]")
_CJK_GAP = re.compile(rf"(?<=[{_CJK}])\s+(?=[{_CJK}，。！？、；：,.!?;:])"
                      rf"|(?<=[，。！？、；：,.!?;:])\s+(?=[{_CJK}])")
_SPACES = re.compile(r"[^\S\n]+")
_HAS_LETTER = re.compile(r"[a-z]")
# Cantonese written words read as Mandarin ones (睇到呢句 as 看到这句, 冇 as 没, 係 as 是), before
# the traditional characters are simplified (係 would become 系, "system"): the detectors'
# Chinese patterns are Mandarin.
_MANDARIN = {"嘅": "的", "睇": "看", "冇": "没", "唔係": "不是", "我係": "我是", "你係": "你是",
             "佢係": "他是", "就係": "就是", "唔好": "不要", "唔要": "不要", "唔會": "不会",
             "唔知": "不知", "佢": "他", "咗": "了",
             "喺": "在", "俾": "给", "畀": "给", "啲": "些", "唔使": "不用", "唔駛": "不用",
             "呢句": "这句", "呢個": "这个", "呢个": "这个",
             "呢度": "这里", "呢段": "这段", "呢條": "这条", "呢条": "这条"}
_CANTONESE = re.compile("|".join(sorted(_MANDARIN, key=len, reverse=True)))
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{16,}={0,2}")
# "反过来说" is "conversely": a Chinese cue is a reading (倒过来读), not a turn of phrase.
_BACKWARDS = re.compile(r"\bbackwards?\b|\brevers(?:e|ed|ing)\b|\bright[\s-]+to[\s-]+left\b"
                        r"|(?:倒过来|倒着|反过来|反着|倒序|从右往左|从右到左)(?:读|看|念)")
# A line break that ends no sentence and starts no list item (``- ``, ``* ``, ``• ``, ``1. ``,
# ``2)``): a list's items are separate statements.
_SOFT_BREAK = re.compile(r"(?<![.!?。！？:：;；])\s*\n\s*(?![-*•·]\s|\d{1,3}[.)、]\s?)")
_SMALL_CAPITAL = re.compile(r"LATIN LETTER SMALL CAPITAL ([A-Z])")
# Three or more single letters, each followed by one separator: ``i g n o r e``, ``s.y.s``.
_SPACED = re.compile(r"(?<![^\W\d_])(?:[^\W\d_][ .\-_*·]){2,}[^\W\d_](?![^\W\d_])")
# A run of word characters and leet symbols: read only when it holds a letter (``read``); one
# pass over the text (a pattern requiring the letter backtracked over long runs of digits).
_LEET_WORD = re.compile(r"[\w@$!|+]+")
# 7 reads as t, 5 as s, 0 as o; 1 as i ("1gn0r3", "pr3v10us") or as l ("ru1es", "a11"):
# each word takes the reading its reader knows (``vocabulary``), i by default.
_LEET = {"0": "o", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g", "@": "a",
         "$": "s", "!": "i", "|": "l", "+": "t"}
_LEET_I, _LEET_L = str.maketrans(_LEET | {"1": "i"}), str.maketrans(_LEET | {"1": "l"})


@cache
def _lookalikes() -> dict[int, str]:
    """Each letter that Unicode lists as confusable with a Latin letter, folded to it: only
    letters, never CJK (a Chinese character is never folded) and never digits (``0`` vs
    ``O`` is the leet view's business, with its own guard). Small capitals (``ɪɢɴᴏʀᴇ``) are
    not in that table: they fold by their Unicode name, ``LATIN LETTER SMALL CAPITAL I``."""
    from confusable_homoglyphs.confusables import confusables_data as data

    found: dict[str, list[str]] = {}
    for key, glyphs in data.items():
        for glyph in (g["c"] for g in glyphs):
            for latin, other in ((key, glyph), (glyph, key)):
                if len(latin) == 1 and latin.isascii() and latin.isalpha() and len(other) == 1 \
                        and not other.isascii() and unicodedata.category(other).startswith("L") \
                        and not re.match(rf"[{_CJK}]", other):
                    found.setdefault(other, []).append(latin)
    # A letter may imitate several (Greek capital iota: ``l`` and ``I``): the one of its own
    # case, so that ``ΙΝSΤRUCΤΙΟΝS`` reads ``instructions``, not ``lnstructlons``.
    fold: dict[int, str] = {}
    for other, latins in found.items():
        same = [c for c in latins if c.isupper() == other.isupper()]
        # none of its case: what its own small letter imitates (``Ι`` as ``ι``, an ``i``)
        small = found.get(other.lower(), []) if other.isupper() and not same else []
        fold[ord(other)] = (same or small or latins)[0].lower()
    # IPA and phonetic extensions, and Latin Extended-D (``ꜰ``, ``ꜱ``): where small capitals live
    for code in (*range(0x0250, 0x1DC0), *range(0xA720, 0xA800)):
        named = _SMALL_CAPITAL.fullmatch(unicodedata.name(chr(code), ""))
        if named:
            fold.setdefault(code, named[1].lower())
    return fold


@cache
def _simplifier() -> Callable[[str], str]:
    """Traditional Chinese read as simplified (OpenCC's ``t2s``, the ``opencc`` package): the
    detectors' Chinese patterns are written once, in simplified characters, and ``從現在起``
    says what ``从现在起`` says. Loaded on first use, as the other detectors are."""
    import opencc

    return opencc.OpenCC("t2s").convert


def simplified(text: str) -> str:
    """``text`` with traditional Chinese characters written as simplified ones (text without
    Han characters is returned as it is, without loading the converter)."""
    return _simplifier()(text) if _HAN.search(text) else text


def mandarin(text: str) -> str:
    """``text`` with common written Cantonese read as Mandarin, then simplified: what the
    detectors' Chinese patterns are written in."""
    return simplified(_CANTONESE.sub(lambda m: _MANDARIN[m.group()], text))


def plain(text: str) -> str:
    """NFKC, no format characters nor combining marks, look-alikes folded, lower case, one
    space per run (line breaks kept), none between CJK characters."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    text = "".join(c for c in text if unicodedata.category(c) not in ("Cf", "Mn", "Me"))
    text = unicodedata.normalize("NFKC", text).translate(_lookalikes()).lower()
    text = mandarin(text)
    return _CJK_GAP.sub("", _SPACES.sub(" ", text))


def leet(folded: str, vocabulary: frozenset[str] = frozenset()) -> str:
    """``plain`` text with leetspeak read as letters, in words that hold a letter; where a
    word reads two ways, the reading found in ``vocabulary`` (the detector's own words)."""

    def read(word: str) -> str:
        if not _HAS_LETTER.search(word):
            return word  # a price, a count
        as_i, as_l = word.translate(_LEET_I), word.translate(_LEET_L)
        return as_l if as_l in vocabulary and as_i not in vocabulary else as_i

    return _LEET_WORD.sub(lambda m: read(m.group()), folded)


def joined(folded: str, vocabulary: frozenset[str] = frozenset()) -> tuple[str, str | None]:
    """``plain`` text with letter-spaced runs joined, and the text with no spaces at all when
    there was such a run (None otherwise: a compact match on ordinary text means nothing)."""
    spaced = _SPACED.search(folded)
    text = _SPACED.sub(lambda m: re.sub(r"[ .\-_*·]", "", m.group()), folded)
    return text, re.sub(r"[\s.\-_*·,;:!?'\"]+", "", leet(folded, vocabulary)) if spaced else None


def unwrapped(folded: str) -> str:
    """``plain`` text with every line break that ends no sentence read as a space: an
    instruction broken over lines (``ignore all previous\ninstructions``) reads whole, while
    the other views keep the breaks that line-anchored patterns (a role tag) need."""
    return _SOFT_BREAK.sub(" ", folded)


def decoded(text: str) -> list[str]:
    """The ``plain`` text of each base64 run in ``text`` (16 characters or more) that decodes
    to UTF-8 text, mostly printable."""
    found = []
    for run in _BASE64.findall(text):
        try:
            said = base64.b64decode(run + "=" * (-len(run) % 4), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            continue
        if said and sum(c.isprintable() or c.isspace() for c in said) >= 0.9 * len(said):
            found.append(plain(said))
    return found


def views(text: str, vocabulary: frozenset[str] = frozenset()) -> tuple[list[str], str | None]:
    """The views a detector matches its patterns against, and the compact one (or None);
    ``vocabulary``: the words the detector looks for, which settle a leet word's reading."""
    folded = plain(text)
    spaced, compact = joined(folded, vocabulary)
    seen = [folded, leet(folded, vocabulary), spaced, leet(spaced, vocabulary)]
    if "\n" in folded:
        seen += [unwrapped(view) for view in seen]
    seen += decoded(text)
    if _BACKWARDS.search(folded):
        seen.append(folded[::-1])
    return list(dict.fromkeys(seen)), compact
