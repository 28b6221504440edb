"""The ``vintage`` command line. Its handlers (here and in the ``api.cli_*`` groups) parse the
arguments, call functions of ``queries``, ``ingest`` and ``vintage.graph.memory`` (or the demo,
``vintage.demo``) on the store ``vintage.cli.options`` opens, and format the result
(``vintage.render.facts``,
``vintage.render.memory``); they make no store call and no decision of their own. Global options go
before the command: ``vintage --store URI --tenant T asof ...``.

Exit codes: 0 done; 2 a malformed command line, or a request or input refused
(``vintage.graph.core.errors.UserError``, or pydantic's ``ValidationError`` of the input), said in
one line on stderr; 3 a memory write the gate refused or found in conflict (``vintage.cli.memory``);
1 from
``vintage neo4j`` when the server fails to start or stop, or none runs; 69 the store's server did
not answer (``vintage.graph.store.protocol.StoreUnreachable``: try again later); 70 an internal
error, one line on stderr, with its traceback only when ``VINTAGE_DEBUG=1``; 74 the result could
not be written to standard output (a full disk, a closed pipe's device): what the command did is
done, and said so.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Annotated, Any, TextIO, cast

import typer
from pydantic import ValidationError

from vintage.cli.commands import VintageGroup
from vintage.cli.options import Options, default_actor
from vintage.graph.core.errors import InvalidArgument, UserError
from vintage.graph.store.protocol import StoreUnreachable
from vintage.render.terminal import console, safe, visible

app = typer.Typer(name="vintage", no_args_is_help=True, add_completion=False,
                  pretty_exceptions_enable=False, cls=VintageGroup,
                  help="Bitemporal facts on Neo4j: what was known, when, and why.")
err = console(stderr=True)

USER_ERROR_EXIT = 2
# The command-line parser's errors, by typer's own classes (it ships its copy of click's).
_USAGE_ERROR: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
_ABORT = typer.Abort
UNREACHABLE_EXIT = 69  # EX_UNAVAILABLE (sysexits.h): the store's server did not answer
INTERNAL_ERROR_EXIT = 70  # EX_SOFTWARE (sysexits.h)
OUTPUT_ERROR_EXIT = 74  # EX_IOERR (sysexits.h): standard output could not be written
DEBUG_ENV = "VINTAGE_DEBUG"


@app.callback()
def main_options(
    ctx: typer.Context,
    store: Annotated[str | None, typer.Option(
        "--store", envvar="VINTAGE_STORE",
        help="bolt:// or neo4j:// URI, or a directory for the embedded store "
             "(default: ./.vintage/store).")] = None,
    tenant: Annotated[str | None, typer.Option(
        "--tenant", envvar="VINTAGE_TENANT", help="Tenant every read and write is scoped to.")]
        = None,
    actor: Annotated[str | None, typer.Option(
        "--actor", envvar="VINTAGE_ACTOR",
        help="Who runs the command, named by every event it causes (default: user:<your OS "
             "user name>).")] = None,
    server: Annotated[str | None, typer.Option(
        "--server", envvar="VINTAGE_SERVER",
        help="A vintage serve URL: run the command against its HTTP API, as the key's "
             "principal, instead of opening a store (vintage.client.commands).")] = None,
    key: Annotated[str | None, typer.Option(
        "--key", envvar="VINTAGE_KEY", help="The API key for --server.")] = None,
) -> None:
    if actor is not None and not actor.strip():
        raise typer.BadParameter("name who runs the command", param_hint="--actor")
    ctx.obj = Options(store, tenant, actor or default_actor())
    if server:
        from vintage.client.commands import run_remote  # the HTTP client: only when asked for

        run_remote(ctx, server, key)


def main() -> None:
    """Run the command line; a refused request and an internal error each end in one line on
    stderr and their own exit code (module docstring), never a traceback unless asked for."""
    given = sys.stdout
    out = _Watched(given)
    if given is not None:  # a closed descriptor (`>&-`): nothing to watch, rich drops output
        sys.stdout = cast(TextIO, out)
    try:
        _utf8_arguments(sys.argv[1:])
        # Not standalone: a malformed command line comes here, to be said in one line like
        # every other refusal (typer's own form is a usage line, a hint and a boxed message).
        done = app(standalone_mode=False, prog_name="vintage")
        if isinstance(done, int) and not isinstance(done, bool) and done:
            sys.exit(done)  # typer.Exit(code), Ctrl-C (130)
    except _USAGE_ERROR as exc:
        if type(exc).__name__ != "NoArgsIsHelpError":  # the help it stands for is printed
            err.print(f"[red]error:[/red] {safe(usage(exc))}", highlight=False)
        sys.exit(getattr(exc, "exit_code", USER_ERROR_EXIT))
    except _ABORT:
        sys.stderr.write("aborted\n")
        sys.exit(1)
    except StoreUnreachable as exc:
        err.print(f"[red]error:[/red] {safe(exc)}", highlight=False)
        sys.exit(UNREACHABLE_EXIT)
    except (UserError, ValidationError) as exc:
        err.print(f"[red]error:[/red] {safe(refusal(exc))}", highlight=False)
        sys.exit(USER_ERROR_EXIT)
    except OSError as exc:
        if not out.failed:
            _internal(exc)
        out.silence()
        # A write made before the result was printed stands: "internal error" would read as
        # if it had not happened.
        sys.stderr.write(f"error: the result could not be written to standard output "
                         f"({exc.strerror or type(exc).__name__}); whatever the command wrote "
                         "to the store stands (vintage audit shows it)\n")
        sys.exit(OUTPUT_ERROR_EXIT)
    except Exception as exc:
        _internal(exc)
    finally:
        sys.stdout = given


def _internal(exc: Exception) -> None:
    if os.environ.get(DEBUG_ENV) == "1":
        raise exc
    sys.stderr.write(internal_error(exc) + "\n")
    sys.exit(INTERNAL_ERROR_EXIT)


class _Watched:
    """Standard output, noting whether a write to it failed: an ``OSError`` from it (a full
    disk) is told apart from one of the store's or a file's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.failed = False

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError:
            self.failed = True
            raise

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError:
            self.failed = True
            raise

    def silence(self) -> None:
        """Point the descriptor at the null device: Python's own flush at exit, of what could
        not be written, would add a second message."""
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._stream.fileno())
            os.close(null)
        except (OSError, ValueError, io.UnsupportedOperation):
            pass  # not a descriptor (a test's captured stream): nothing to flush at exit

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _utf8_arguments(args: list[str]) -> None:
    """Every argument is UTF-8 text: an undecodable byte reaches Python as a lone surrogate,
    which every later encoding of it failed on, as an internal error (exit 70), wherever it
    was (a key, a query, a source id, ``--actor``). Refused here, naming its place only."""
    for n, arg in enumerate(args, start=1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidArgument(f"argument {n} is not UTF-8 text: give it as UTF-8") from None


def usage(exc: Exception) -> str:
    """A malformed command line's message on one line, naming the help that says more."""
    message = " ".join(getattr(exc, "format_message", exc.__str__)().split())
    ctx = getattr(exc, "ctx", None)
    return f"{message} (see {ctx.command_path} --help)" if ctx is not None else message


def refusal(exc: Exception) -> str:
    """A refusal's message on one line: pydantic's several lines become each field and what
    is wrong with it (never the input value, which may be content)."""
    if not isinstance(exc, ValidationError):
        return str(exc)
    return "; ".join(
        f"{'.'.join(map(str, e['loc'])) or exc.title}: {e['msg'].removeprefix('Value error, ')}"
        for e in exc.errors())


def internal_error(exc: BaseException) -> str:
    """The one line an engine fault is reported with (its message folded onto that line, its
    control characters shown, not obeyed)."""
    message = visible(" ".join(str(exc).split()))
    return (f"internal error: {type(exc).__name__}: {message} "
            f"(set {DEBUG_ENV}=1 for the traceback)")
