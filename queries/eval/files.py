"""Reading scenario files (docs/eval.md, "Scenario files"): YAML, checked whole before anything is
written, so that a mistake is one line naming the file, the scenario and the field."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from vintage.graph.core.errors import InvalidArgument
from vintage.queries.eval.scenario import (
    Correct,
    Echo,
    Forget,
    Ingest,
    Invalidate,
    Remember,
    Scenario,
    Used,
)


def bundled_dir() -> Path:
    return Path(__file__).with_name("scenarios")


def load(paths: Iterable[Path]) -> list[Scenario]:
    """Every scenario of the files and folders given (folders: their ``*.yaml``, sorted), in
    order; ids must be unique across all of them."""
    scenarios: list[Scenario] = []
    seen: dict[str, Path] = {}
    for path in paths:
        for file in _files(path):
            for scenario in _read(file):
                if scenario.id in seen:
                    raise InvalidArgument(f"{file}: scenario id {scenario.id!r} is also in "
                                          f"{seen[scenario.id]}")
                seen[scenario.id] = file
                _check_names(file, scenario)
                scenarios.append(scenario)
    return scenarios


def _files(path: Path) -> Iterator[Path]:
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml"))
        if not found:
            raise InvalidArgument(f"{path}: no scenario files (*.yaml) in this folder")
        yield from found
    elif path.is_file():
        yield path
    else:
        raise InvalidArgument(f"{path}: no such scenario file or folder")


def _read(file: Path) -> list[Scenario]:
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" line {where.line + 1}" if where is not None else ""
        raise InvalidArgument(f"{file}:{line} not a YAML scenario file") from None
    items = data.get("scenarios") if isinstance(data, dict) and "scenarios" in data else data
    items = items if isinstance(items, list) else [items]
    out = []
    for n, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise InvalidArgument(f"{file}: scenario {n} is not a mapping")
        try:
            out.append(_anchored(Scenario.model_validate(item), file.parent))
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "scenario"
            name = item.get("id", f"#{n}")
            raise InvalidArgument(f"{file}: scenario {str(name)[:80]!r}: {field}: "
                                  f"{err['msg']}") from None
    return out


def _anchored(s: Scenario, folder: Path) -> Scenario:
    """An ingest step's file, relative to the scenario file's folder, made absolute."""
    steps = tuple(step.model_copy(update={"file": folder / step.file})
                  if isinstance(step, Ingest) and step.file is not None
                  and not step.file.is_absolute() else step for step in s.steps)
    return s.model_copy(update={"steps": steps})


def _check_names(file: Path, s: Scenario) -> None:
    """Every name a step or an ask refers to is a step before it."""
    known: set[str] = set()

    def need(ref: str, where: str) -> None:
        if ref not in known:
            raise InvalidArgument(f"{file}: scenario {s.id!r}: {where} names {ref[:80]!r}, "
                                  "which no earlier step is called")

    for n, step in enumerate(s.steps, 1):
        for ref in _refs(step):
            need(ref, f"step {n}")
        rows = step.rows if isinstance(step, Ingest) else ()
        for name in (step.name, *(str(r["name"]) for r in rows if "name" in r)):
            if name is None:
                continue
            if name in known:
                raise InvalidArgument(f"{file}: scenario {s.id!r}: two steps are called "
                                      f"{name[:80]!r}")
            known.add(name)
    for ask in s.asks:
        for ref in (*ask.expect.include, *ask.expect.exclude,
                    *((ask.expect.stale,) if ask.expect.stale else ())):
            need(ref, f"ask {ask.id!r}")


def _refs(step: Any) -> tuple[str, ...]:
    if isinstance(step, Correct | Invalidate):
        return (step.target,)
    if isinstance(step, Forget) and step.target is not None:
        return (step.target,)
    if isinstance(step, Echo):
        return (step.of,)
    if isinstance(step, Used):
        return (step.of, *step.items)
    if isinstance(step, Remember):
        return step.evidence
    return ()
