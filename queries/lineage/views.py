"""JSON-ready views of stored records, shared by explain, impact and the CLI's ``--json``."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from vintage.graph.core.model import DerivationIn, Fact, Source, Value


class _View(BaseModel):
    model_config = ConfigDict(frozen=True)


class FactView(_View):
    id: str
    subject: str
    predicate: str
    value: Value
    unit: str | None
    kind: str
    status: str
    revision: int
    valid: tuple[datetime, datetime | None]
    knowledge: tuple[datetime, datetime | None]
    system: tuple[datetime, datetime | None]

    @classmethod
    def of(cls, f: Fact) -> FactView:
        return cls(
            id=f.id, subject=f.subject, predicate=f.predicate, value=f.value, unit=f.unit,
            kind=f.kind.value, status=f.status.value, revision=f.revision,
            valid=(f.valid_from, f.valid_to), knowledge=(f.available_at, f.superseded_at),
            system=(f.recorded_at, f.invalidated_at),
        )


class SourceView(_View):
    id: str
    kind: str
    form: str | None
    accession: str | None
    uri: str | None
    available_at: datetime

    @classmethod
    def of(cls, s: Source) -> SourceView:
        return cls(id=s.id, kind=s.kind.value, form=s.form, accession=s.accession, uri=s.uri,
                   available_at=s.available_at)


class DerivationView(_View):
    id: str
    recipe: str
    version: str
    formula: str | None
    parameters: dict[str, Value]

    @classmethod
    def of(cls, d: DerivationIn) -> DerivationView:
        return cls(id=d.id, recipe=d.recipe, version=d.version, formula=d.formula,
                   parameters=dict(d.parameters))
