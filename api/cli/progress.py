"""Progress on long work, on stderr and only at a terminal (piped output stays quiet)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.progress import Progress, SpinnerColumn, TextColumn

from vintage.render.terminal import console

_err = console(stderr=True)


@contextmanager
def counting(what: str) -> Iterator[Callable[[int], None]]:
    """A callback told a running count (facts indexed so far); the first call shows ``what``
    with the count beside it, until the work ends. Nothing is shown if it is never called."""
    with Progress(SpinnerColumn(), TextColumn("{task.description}: {task.completed:,}"),
                  console=_err, transient=True, disable=not _err.is_terminal) as bar:
        task = None

        def told(done: int) -> None:
            nonlocal task
            if task is None:
                task = bar.add_task(what, total=None)
            bar.update(task, completed=done)

        yield told
