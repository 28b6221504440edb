"""User-defined metrics from a YAML file, validated strictly.

The format (every field but ``formula``, ``unit`` and ``inputs`` is optional)::

    metrics:
      take_rate:
        description: retained revenue per $100 of payment volume
        formula: 100 * revenue / volume
        unit: percent
        window: ltm                # quarter | fy | ltm | any (default any: LTM)
        additive: true             # may inputs be summed over quarters (default true)
        growth: false              # year-over-year change of the formula (default false)
        inputs:                    # role -> predicates, first reported wins
          revenue: [us-gaap:Revenues, us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax]
          volume: [kpi:TotalPaymentVolume]
        subjects:                  # per-subject replacement of some roles' predicates
          PYPL: {volume: [kpi:TPV]}

Unknown fields, repeated keys, wrong types, a formula whose names differ from the roles, a
predicate not shaped ``prefix:Name`` and a name taken by a built-in metric are all errors; each
names the file, the metric and the field, since a silently ignored typo would answer a
different question than the one asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vintage.queries.metrics.definitions import (
    BUILTIN,
    NAME,
    Aliases,
    Metric,
    MetricError,
    WindowKind,
)

__all__ = ["MAX_FILE_BYTES", "load_metrics"]

MAX_FILE_BYTES = 1 << 20


class _MetricDoc(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    description: str = ""
    formula: str
    unit: str = Field(min_length=1)
    window: WindowKind = "any"
    additive: bool = True
    growth: bool = False
    inputs: dict[str, list[str]] = Field(min_length=1)
    subjects: dict[str, dict[str, list[str]]] = Field(default_factory=dict)


class _FileDoc(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    metrics: dict[str, _MetricDoc]


class _StrictLoader(yaml.SafeLoader):
    """Safe YAML that refuses a repeated key instead of silently keeping the last one."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # '<<' merges are YAML's own override mechanism; leave them be
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} appears twice", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


def _tuples(roles: Mapping[str, list[str]]) -> dict[str, Aliases]:
    return {role: tuple(aliases) for role, aliases in roles.items()}


def _where(raw: tuple[int | str, ...]) -> str:
    loc = tuple(str(part)[:40] for part in raw)  # keys are user text: echo a prefix only
    if len(loc) >= 2 and loc[0] == "metrics":
        field_path = ".".join(loc[2:]) or "(the definition)"
        return f"metric {loc[1]!r}, field {field_path!r}"
    return f"field {'.'.join(loc) or '(top level)'!r}"


def load_metrics(path: str | Path) -> dict[str, Metric]:
    """User metrics from a YAML file (``metrics: {name: {formula, unit, inputs, ...}}``)."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise MetricError(f"{path}: larger than {MAX_FILE_BYTES} bytes")
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_StrictLoader)
    except OSError as exc:
        raise MetricError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise MetricError(f"{path}: not valid YAML: {exc}") from None
    try:
        doc = _FileDoc.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise MetricError(f"{path}: {_where(first['loc'])}: {first['msg']}") from None
    out: dict[str, Metric] = {}
    for name, m in doc.metrics.items():
        if name in BUILTIN:
            raise MetricError(f"{path}: metric {name!r}: the name is a built-in metric's")
        if not NAME.fullmatch(name):
            raise MetricError(f"{path}: metric {name[:40]!r}, field 'name': use lowercase "
                              "letters, digits and '_', starting with a letter")
        try:
            subjects = {s: _tuples(roles) for s, roles in m.subjects.items()}
            out[name] = Metric(name, m.formula, _tuples(m.inputs), m.unit, m.window,
                               m.additive, m.growth, subjects, m.description)
        except MetricError as exc:
            raise MetricError(f"{path}: {exc}") from None
    return out
