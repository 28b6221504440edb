"""Counting tokens with a real tokenizer, shipped in the package: what a context budget means.

The tokenizer is all-MiniLM-L6-v2's WordPiece over the bert-base-uncased vocabulary, the same one
the embedder feeds the model with, vendored as ``data/minilm-tokenizer.json.gz`` (``data/NOTICE.md``
says where it comes from and why it is vendored). Nothing is downloaded, ever; nothing is loaded
until the first count. A budget counted here is an estimate for another model's tokenizer (an
LLM's counts differ by some percent), which is why the output names the tokenizer.
"""

from __future__ import annotations

import functools
import gzip
import threading
from importlib import resources

from tokenizers import Tokenizer

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


@functools.cache
def token_counter() -> TokenCounter:
    """The one counter of the process (the tokenizer is loaded once, on first use)."""
    return TokenCounter()
