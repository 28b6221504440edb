"""An experience: what an agent learned to do, in the shape a reviewer can check.

Trigger (when it applies), preconditions (what must hold), steps (what to do, in order) and
outcome (what doing it achieves). It is stored as one canonical JSON text (sorted keys, no
spaces), so the same experience written twice is one value, and the built-in summariser renders
it like any other memory. Its validation evidence is not part of the value: each successful
outcome on a distinct task is a support of the experience, and a failure counts against it
(``vintage.graph.memory.promotion``).
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vintage.graph.core.errors import UserError

FIELDS = ("trigger", "preconditions", "steps", "outcome")


class Experience(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    trigger: str = Field(min_length=1)
    preconditions: tuple[str, ...] = ()
    steps: tuple[str, ...] = Field(min_length=1)
    outcome: str = Field(min_length=1)

    def encode(self) -> str:
        return json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))


class NotAnExperience(UserError, ValueError):
    """A value that is not an experience; the message names what is wrong, never the text."""


def parse(value: object) -> Experience:
    if not isinstance(value, str):
        raise NotAnExperience("an experience is a JSON object with "
                              f"{', '.join(FIELDS)}")
    try:
        data = json.loads(value)
    except json.JSONDecodeError:
        raise NotAnExperience("an experience is a JSON object with "
                              f"{', '.join(FIELDS)}") from None
    if not isinstance(data, dict):
        raise NotAnExperience(f"an experience is a JSON object with {', '.join(FIELDS)}")
    try:
        return Experience.model_validate(data)
    except ValidationError as exc:
        where = sorted({str(e["loc"][0]) for e in exc.errors() if e["loc"]})
        raise NotAnExperience(f"an experience needs {', '.join(where) or 'its fields'} "
                              f"(fields: {', '.join(FIELDS)})") from None


def canonical(value: object) -> object:
    """The canonical text of a valid experience; anything else unchanged (the gate refuses it,
    as an audited decision)."""
    try:
        return parse(value).encode()
    except NotAnExperience:
        return value
