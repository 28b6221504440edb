"""``vintage eval`` and ``vintage health``: the evaluation harness and a scope's memory health
from the command line (docs/eval.md).

Parses the options, opens the store with the harness's clock (a scratch embedded store in a
temporary folder unless ``--store`` or the global ``--store`` names one: fresh tenants either
way), takes the store's embedder (``vintage config embedder``: ``vintage.graph.retrieval.choice``),
runs ``vintage.queries.eval.run.evaluate`` and formats (``vintage.render.eval``).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from vintage.cli.options import AsJson, Options
from vintage.cli.scoping import Project, Thread, User, scope_of
from vintage.graph.core.errors import InvalidArgument
from vintage.graph.core.model import Scope
from vintage.graph.retrieval.choice import embedder_for
from vintage.graph.store.backends import is_neo4j, neo4j_auth, open_store
from vintage.graph.store.protocol import Store
from vintage.ingest.facts_table import ingest_table
from vintage.queries.eval import files, graphiti, recorded
from vintage.queries.eval import scenario as sc
from vintage.queries.eval.answer import answer
from vintage.queries.eval.chat import ChatAnswerer
from vintage.queries.eval.health import as_data, health
from vintage.queries.eval.naive import NaiveRag
from vintage.queries.eval.run import evaluate, select
from vintage.queries.eval.rungs import RUNGS, Rung, ladder
from vintage.queries.eval.written import Clock
from vintage.render import eval as render_eval
from vintage.render.terminal import console, print_json

_out = console()
_err = console(stderr=True)
PEERS = ("naive-rag",)
# Opt-in (an optional extra and a Neo4j store): never among the defaults.
OPT_IN = graphiti.PEERS


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_cmd)
    app.command("health")(health_cmd)


def health_cmd(
    ctx: typer.Context,
    days: Annotated[int, typer.Option(help="The window: cold since, conflicts open longer "
                                           "than, contexts recorded within (days).",
                                      min=1, max=36500)] = 30,
    drill: Annotated[bool, typer.Option(help="Run the error-injection drill (a known-bad "
                                             "memory in a scratch thread, then erased).")]
        = True,
    user: User = None, project: Project = None, thread: Thread = None,
    as_json: AsJson = False,
) -> None:
    """How a scope's memory is doing: cold memories, what contexts spend their tokens on,
    conflicts left open, candidates awaiting review, and an error-injection drill."""
    options: Options = ctx.obj
    with options.opened() as opened:  # a scope of a store that exists: nothing to drill else
        found = health(opened, scope_of(options, user, project, thread), days=days,
                       actor=options.actor, drill=drill)
    if as_json:
        print_json(_out, json.dumps(as_data(found), default=str, ensure_ascii=False))
    else:
        render_eval.health(_out, found)


def eval_cmd(
    ctx: typer.Context,
    scenarios: Annotated[list[Path] | None, typer.Option(
        "--scenarios", help="A scenario file or folder (repeatable; default: the bundled ones).")]
        = None,
    family: Annotated[list[str] | None, typer.Option(
        "--family", help="Only scenarios of this family (repeatable).")] = None,
    rung: Annotated[list[str] | None, typer.Option(
        "--rung", help=f"Only this rung or peer (repeatable): {', '.join((*RUNGS, *PEERS))}; "
                        f"on a Neo4j store also {', '.join(OPT_IN)} (pip install "
                        f"'vintage[graphiti]').")]
        = None,
    store: Annotated[str | None, typer.Option(
        "--store", help="The store to evaluate on (fresh tenants); default: a scratch embedded "
                        "store in a temporary folder, removed afterwards.")] = None,
    report: Annotated[Path | None, typer.Option(
        "--report", help="Also write a self-contained HTML report to this file.")] = None,
    answerer: Annotated[str | None, typer.Option(
        "--answerer", help="openai:<base_url>#<model>: a model answers from each context "
                           "instead of the deterministic rule (key: VINTAGE_EVAL_ANSWERER_KEY).")]
        = None,
    record: Annotated[bool, typer.Option(
        "--record", help="Keep the summary in the store named by --store, in the tenant of "
                         "--tenant: GET /v1/eval/report and the explorer show the latest.")]
        = False,
    as_json: AsJson = False,
) -> None:
    """Replay scenarios through the engine and score the write, retrieval, context and task
    layers on each rung of the ladder (none, exact, keyword, semantic, hybrid, engine) and
    beside a naive RAG peer."""
    options: Options = ctx.obj
    chosen = _rungs(rung or [])
    answers = ChatAnswerer.of(answerer) if answerer else answer
    found = select(files.load(scenarios or [files.bundled_dir()]), family or [])
    if report is not None and not report.parent.is_dir():
        raise InvalidArgument(f"--report: no folder {report.parent} to write the report in")
    target = store or options.store
    if record and (target is None or not options.tenant):
        raise InvalidArgument("--record: name the store (--store) and the tenant (--tenant) "
                              "to keep the report in")
    if any(r in OPT_IN for r in chosen):
        graphiti.require(target or "a scratch store", target is not None and is_neo4j(target))
    with tempfile.TemporaryDirectory(prefix="vintage-eval-") as scratch:
        uri = target or str(Path(scratch) / "store")
        clock = Clock(sc.FIRST_STEP)
        opened = open_store(uri, clock=clock)
        # The store's recorded choice (on a scratch store: VINTAGE_EMBEDDER's or the default,
        # recorded now), as every search of the store uses: the scenarios' tenants are fresh,
        # so the store-wide choice is theirs.
        embedder = embedder_for(opened, None)
        peers = graphiti.peers(uri, neo4j_auth(), embedder, chosen)
        every: list[Rung] = [*ladder(embedder), NaiveRag(embedder), *peers]
        rungs = [r for r in every if r.name in chosen]
        try:
            with Progress(TextColumn("{task.description}"), BarColumn(),
                          MofNCompleteColumn(), console=_err, transient=True,
                          disable=as_json or not _err.is_terminal) as bar:
                task = bar.add_task("scenarios", total=len(found))
                result = evaluate(opened, clock, embedder, found, rungs,
                                  backend="neo4j" if is_neo4j(uri) else "embedded",
                                  progress=lambda _id: bar.advance(task), ingest=_ingest,
                                  answerer=answers)
        finally:
            for p in peers[:1]:  # the Graphiti rungs share one client and one graph
                p.store.close()
            opened.close()
    summary = result.summary()
    if record and target is not None and options.tenant:
        # Opened again on the system clock: the harness's clock is the scenarios' own time.
        kept = open_store(target)
        try:
            recorded.record(kept, options.tenant, summary, actor=options.actor)
        finally:
            kept.close()
    if report is not None:
        from vintage.queries.eval.report import html  # matplotlib loads only for a report

        report.write_text(html(summary), encoding="utf-8")
    if as_json:
        print_json(_out, json.dumps(summary, default=str, ensure_ascii=False))
    else:
        render_eval.ladder(_out, summary)


def _ingest(store: Store, scope: Scope, path: Path, actor: str, recompute: bool) -> object:
    return ingest_table(store, scope, path, actor, recompute=recompute)


def _rungs(given: list[str]) -> list[str]:
    known = (*RUNGS, *PEERS, *OPT_IN)
    unknown = [r for r in given if r not in known]
    if unknown:
        raise InvalidArgument(f"--rung {unknown[0][:40]!r}: use one of {', '.join(known)}")
    return list(given) if given else [*RUNGS, *PEERS]
