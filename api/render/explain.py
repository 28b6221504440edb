"""``vintage explain`` as text: the upstream tree of a fact, drawn with tree guides, that never
cuts an id, an accession or a URL at any width.

rich's ``Tree`` crops each line at the terminal's width (80 columns whenever output is piped),
so a fact id or a filing URL at the end of a long label lost its tail. Here each node is a stack
of short lines (what it is; its valid and known intervals; its system one; its id alone on its
line, or a source's URL), printed soft-wrapped: Vintage breaks none of them, a line wider than
the terminal is wrapped by the terminal, and an id copies whole.
"""

from __future__ import annotations

from rich.console import Console

from vintage.queries.lineage.explain import Explanation, Step
from vintage.render.figures import number, when
from vintage.render.terminal import safe

BRANCH, LAST, PIPE, SPACE = "├── ", "└── ", "│   ", "    "


def explanation(console: Console, exp: Explanation) -> None:
    for line in step_lines(exp.root):
        console.print(line, soft_wrap=True, highlight=False)
    if exp.stale is not None:
        said = "closed" if exp.stale.closed else "stale"
        console.print(f"[red]{said}[/red]: {safe(exp.stale.phrase())}", soft_wrap=True,
                      highlight=False)


def step_lines(step: Step, role: str | None = None) -> list[str]:
    """A node's own lines (markup-safe), then its children's, each child under a guide."""
    f = step.fact
    head = f"[bold]{number(f.value, f.unit)}[/bold]  {safe(f.subject)} {safe(f.predicate)}"
    lines = [f"[cyan]{safe(role)}[/cyan] = {head}" if role else head,
             f"  valid {when(f.valid[0])}..{when(f.valid[1])}  known {when(f.knowledge[0])}.."
             f"{when(f.knowledge[1])}",
             f"  [dim]recorded {when(f.system[0])}..{when(f.system[1])}[/dim]",
             f"  [dim]id[/dim] {safe(f.id)}"]
    children: list[list[str]] = []
    children += [[f"[yellow]corrects[/yellow] {safe(older)}"] for older in step.supersedes]
    children += [[f"[yellow]corrected by[/yellow] {safe(newer)}"]
                 for newer in step.superseded_by]
    for s in step.sources:
        source = [f"[green]source[/green] {safe(s.kind)} {safe(s.form or '')} {safe(s.id)}, "
                  f"public {when(s.available_at)}"]
        children.append(source + ([f"  {safe(s.uri)}"] if s.uri else []))
    for j in step.derived_by:
        d = j.derivation
        derived = [f"[magenta]derived by[/magenta] {safe(d.recipe)} v{safe(d.version)}: "
                   f"{safe(d.formula or '(python)')}", f"  [dim]id[/dim] {safe(d.id)}"]
        inputs = [step_lines(i.step, i.role) for i in j.inputs]
        children.append(derived + nested(inputs))
    return lines + nested(children)


def nested(children: list[list[str]]) -> list[str]:
    """Children's lines under tree guides: ``├──`` (``└──`` for the last) before each child's
    first line, ``│`` (blank after the last) before the rest."""
    out: list[str] = []
    for n, child in enumerate(children):
        last = n == len(children) - 1
        out.append((LAST if last else BRANCH) + child[0])
        out += [(SPACE if last else PIPE) + line for line in child[1:]]
    return out
