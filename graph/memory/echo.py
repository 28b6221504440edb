"""A context pack written back as a memory: an echo, not new evidence.

An agent handed a pack (``vintage.queries.search.pack``) may store it, or paste it into a note,
as its own output. Learning it again would turn what Vintage said into a second source for
itself, and keep a value alive after the user corrected or erased it (docs/memory.md, "Agent
memory"). Every pack names its injection in its first lines, in either format (Markdown:
``# Context for thread T`` then ``injection e…``; JSON: ``{"context":{"injection":"e…"``), so
a value that carries a pack's header is refused, naming the injection and never the text.
"""

from __future__ import annotations

import re

# The header is written by vintage.queries.search.fit (Layout._head); only its head is read.
_MARKDOWN = re.compile(r"#\s*Context for thread\b[^\n]*\n\s*injection\s+(e[0-9a-f]{8,64})\b")
_JSON = re.compile(r'\{\s*"context"\s*:\s*\{\s*"injection"\s*:\s*"(e[0-9a-f]{8,64})"')
_HEAD = 2000  # a pack's header lies in its first lines; a long value is not scanned whole


def echoed_pack(value: object) -> str | None:
    """The injection id of the context pack ``value`` repeats, or None."""
    if not isinstance(value, str):
        return None
    head = value[:_HEAD]
    found = _MARKDOWN.search(head) or _JSON.search(head)
    return found.group(1) if found else None
