"""The scope options a command reads memories with (``--user``, ``--project``, ``--thread``):
apart from ``vintage.cli.memory`` so that a command that only reads (``search``) does not import
the memory commands' whole write path at start-up (issue 39: a search in a new process)."""

from __future__ import annotations

from typing import Annotated

import typer

from vintage.cli.options import Options
from vintage.graph.core.model import Scope
from vintage.graph.memory.draft import memory_scope

User = Annotated[str | None, typer.Option(help="Scope: the user the memory belongs to.")]
Project = Annotated[str | None, typer.Option(help="Scope: a project.")]
Thread = Annotated[str | None, typer.Option(help="Scope: a conversation thread.")]


def scope_of(options: Options, user: str | None, project: str | None,
             thread: str | None) -> Scope:
    return memory_scope(options.scope().tenant, user, project, thread)
