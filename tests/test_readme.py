"""The README's and the manual's examples run as a reader would run them, and the docs' links
and citations hold. The manual is the pages of docs/ that the README's table lists; each page's
examples run as the README's do, a page at a time, in its own order and its own stores.

Marking. A fenced ``bash`` or ``python`` block runs when the line right before its fence is
``<!-- runnable -->``. Every other such block says why it does not, on that line:
``<!-- not run: REASON -->`` (a Neo4j server, a placeholder id, the whole test suite...).
Output blocks (``json``, ``yaml``, no language) are not marked.

Python blocks run each in a fresh namespace, with a temporary folder as the working directory,
so the default embedded store (``.vintage/store``) lands there. They check themselves with
``assert``.

Shell blocks run in README order, from the repository root (so ``ingest/data/...`` resolves),
like a reader pasting them one after another: a shell function defined in one block
(``vm() { ... "$@"; }``) serves the later ones, and what one block writes, the next reads. The
store is embedded, in a temporary folder (``VINTAGE_STORE``), one per tenant: tenants never see
each other, and so a command replays only its own tenant's log, not the SEC files another
tenant ingested. Each command is ``vintage``, ``.venv/bin/vintage`` or such a function,
and runs in process through ``vintage.cli.main.main`` (a process per command would cost a second of
start-up each). The shell syntax understood is words and quotes (``shlex``), ``\\``
continuations, ``#`` comments, globs (expanded from the repository root, sorted, as bash does)
and that one-line function definition; anything else fails, naming the README line.

Exit codes and output. A command must exit 0 unless a comment on its line or below it says
``exit code N`` or ``(exit N)``. Comment lines right below a command that start with ``#``
and two spaces are its output: each must appear in what the command printed, ``…`` standing
for any text and a run of spaces for any whitespace. A ``#`` and one space is a remark.
"""

from __future__ import annotations

import glob
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.factories import run

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
# The pages with examples: the README, then the manual.
PAGES = [README, *(DOCS / f"{name}.md" for name in (
    "cli", "memory", "search", "service", "eval", "operations", "development"))]
RUNNABLE = "<!-- runnable -->"
NOT_RUN = re.compile(r"^<!-- not run: \S.* -->$")
CODE = {"bash", "python"}
CLI = {"vintage", ".venv/bin/vintage"}
FUNCTION = re.compile(r'^([A-Za-z_]\w*)\(\)\s*\{\s*(.+?)\s+"\$@";\s*\}$')
EXIT = re.compile(r"\(?exit(?: code)? (\d+)\)?")
SHELL_OPERATORS = ("|", "&", ";", ">", "<", "$", "`")


@dataclass(frozen=True)
class Block:
    lang: str
    line: int  # the page's line of the block's first line of code
    code: str
    marker: str  # the line right before the fence
    page: str = "README.md"

    def at(self, line: int | None = None) -> str:
        return f"{self.page}:{self.line if line is None else line}"


def blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        fence = re.match(r"^```(\w*)\s*$", lines[i])
        if fence is None:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        found.append(Block(fence.group(1), i + 2, "\n".join(lines[i + 1:end]),
                           lines[i - 1].strip() if i else "", path.name))
        i = end + 1
    return found


def runnable(lang: str, page: Path = README) -> list[Block]:
    return [b for b in blocks(page) if b.lang == lang and b.marker == RUNNABLE]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_example_is_marked_runnable_or_says_why_not(page: Path) -> None:
    unmarked = [b.at() for b in blocks(page)
                if b.lang in CODE and b.marker != RUNNABLE and not NOT_RUN.match(b.marker)]
    assert unmarked == [], f"mark these blocks {RUNNABLE} or <!-- not run: REASON -->"
    misplaced = [b.at() for b in blocks(page) if b.lang not in CODE and b.marker == RUNNABLE]
    assert misplaced == [], "only bash and python blocks run"
    # A reader has the installed package: the repository's folders are not importable by name.
    bare = [b.at() for b in blocks(page) if b.lang == "python"
            and re.search(r"^\s*(?:import|from)\s+(?:graph|api|queries|ingest)\b", b.code, re.M)]
    assert bare == [], "import vintage..., not the repository's folders"


def test_the_readme_shows_a_command_and_a_program_that_run() -> None:
    assert runnable("bash") and runnable("python")


@pytest.mark.parametrize("block", [b for page in PAGES for b in runnable("python", page)],
                         ids=lambda b: b.at())
def test_a_python_example_runs(
    block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code = compile("\n" * (block.line - 1) + block.code, block.page, "exec")
    exec(code, {"__name__": "readme_example"})


# -- shell ----------------------------------------------------------------------------------------


@dataclass
class Command:
    line: int
    argv: list[str]
    exit_code: int
    output: list[str] = field(default_factory=list)


def _code_and_comment(text: str) -> tuple[str, str]:
    """Split a shell line at its first ``#`` that starts a word outside quotes."""
    quote = ""
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i], text[i + 1:]
    return text, ""


def _logical_lines(block: Block) -> list[tuple[int, str]]:
    joined: list[tuple[int, str]] = []
    pending, start = "", block.line
    for n, raw in enumerate(block.code.splitlines(), block.line):
        if not pending:
            start = n
        if raw.endswith("\\"):
            pending += raw[:-1] + " "
            continue
        joined.append((start, pending + raw))
        pending = ""
    assert not pending, f"{block.at(start)}: a continuation runs off the end of the block"
    return joined


def commands(block: Block, functions: dict[str, list[str]]) -> list[Command]:
    found: list[Command] = []
    after_command = False  # output comments belong to the command right above them
    for n, text in _logical_lines(block):
        code, comment = _code_and_comment(text)
        where = block.at(n)
        if not code.strip():
            if after_command and comment.startswith("  "):
                expected = comment.strip()
                if (exit_code := EXIT.search(expected)) is not None:
                    found[-1].exit_code = int(exit_code.group(1))
                    expected = expected[:exit_code.start()].strip()
                found[-1].output.append(expected)
            else:
                after_command = False
            continue
        if (define := FUNCTION.match(code.strip())) is not None:
            functions[define.group(1)] = shlex.split(define.group(2))
            after_command = False
            continue
        words = shlex.split(code)
        odd = [w for w in words if any(op in w for op in SHELL_OPERATORS) or re.match(r"^\w+=", w)]
        assert not odd, f"{where}: shell syntax the README test does not run: {odd}"
        if words[0] in functions:
            words = functions[words[0]] + words[1:]
        assert words[0] in CLI, f"{where}: only vintage commands run, not {words[0]!r}"
        argv: list[str] = []
        for w in words[1:]:
            if any(ch in w for ch in "*?["):
                matches = sorted(glob.glob(w))
                assert matches, f"{where}: {w} matches no file"
                argv += matches
            else:
                argv.append(w)
        exit_code = EXIT.search(comment)
        found.append(Command(n, argv, int(exit_code.group(1)) if exit_code else 0))
        after_command = True
    return found


def commands_text(block: Block) -> list[tuple[int, str, list[str]]]:
    """Each command of a block as shell text (continuations joined, its comment cut), its
    line, and the output comments below it: for a block that must run in a real shell."""
    found: list[tuple[int, str, list[str]]] = []
    for n, text in _logical_lines(block):
        code, comment = _code_and_comment(text)
        if code.strip():
            found.append((n, code.strip(), []))
        elif found and comment.startswith("  "):
            found[-1][2].append(comment.strip())
    return found


def printed(expected: str, output: str) -> bool:
    parts = (r"\s+".join(re.escape(w) for w in piece.split()) for piece in expected.split("…"))
    return re.search(r"[^\n]*?".join(parts), output) is not None


@pytest.mark.parametrize("page", [p for p in PAGES if runnable("bash", p)], ids=lambda p: p.name)
def test_the_shell_examples_run_in_order(
    page: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    for name in ("VINTAGE_TENANT", "NEO4J_URI"):
        monkeypatch.delenv(name, raising=False)
    functions: dict[str, list[str]] = {}
    ran = 0
    for block in runnable("bash", page):
        for cmd in commands(block, functions):
            tenant = cmd.argv[cmd.argv.index("--tenant") + 1] if "--tenant" in cmd.argv else ""
            monkeypatch.setenv("VINTAGE_STORE", str(tmp_path / f"store-{tenant}"))
            code, out, err = run(cmd.argv, capsys, monkeypatch)
            shown = f"{page.name}:{cmd.line}: vintage {shlex.join(cmd.argv)}\n{out}{err}"
            assert code == cmd.exit_code, f"exit code {code}, not {cmd.exit_code}: {shown}"
            for expected in cmd.output:
                assert printed(expected, out + err), f"{expected!r} not printed: {shown}"
            ran += 1
    assert ran > 0


# -- links and citations ----------------------------------------------------------------------


def anchors(path: Path) -> set[str]:
    """GitHub's anchors for a Markdown file's headings."""
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if (heading := re.match(r"^#{1,6}\s+(.*?)\s*$", line)) is not None:
            text = heading.group(1).replace("`", "").lower()
            found.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return found


def _markdown_files() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md")), ROOT / "bench" / "README.md",
            ROOT / "bench" / "RESULTS.md", ROOT / "bench" / "notes" / "history.md"]


@pytest.mark.parametrize("page", _markdown_files(), ids=lambda p: p.name)
def test_relative_links_reach_a_file_and_a_heading(page: Path) -> None:
    broken = []
    text = page.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+:", target):
            continue  # http(s), mailto
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        missing = not file.exists() or (
            bool(anchor) and file.suffix == ".md" and anchor not in anchors(file))
        if missing:
            broken.append(target)
    assert broken == []


def _sources() -> list[Path]:
    skip = {".venv", ".git", "node_modules", ".mypy_cache", ".ruff_cache", ".pytest_cache",
            ".hypothesis", ".vintage", "target", "build", "dist"}
    found = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in skip and not d.endswith(".egg-info")]
        found += [Path(folder) / f for f in files if f.endswith((".py", ".md"))]
    return found


def test_the_code_cites_sections_of_the_docs_that_exist() -> None:
    """A citation ``docs/contract.md, "Writes"`` names a file in docs/ and one of its headings
    (compared as GitHub anchors); the contract lives in docs/, not in a file a clone lacks."""
    bad = []
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        if "DESIGN" + ".md" in text:
            bad.append(f"{where}: cites a file outside the repository (the contract is "
                       "docs/contract.md)")
        for doc, section in re.findall(r'docs/(\w+)\.md(?:,\s+"([^"]+)")?', text):
            target = DOCS / f"{doc}.md"
            if not target.exists():
                bad.append(f"{where}: docs/{doc}.md does not exist")
            elif section:
                words = " ".join(section.replace("`", "").lower().split())
                if re.sub(r"[^\w\- ]", "", words).replace(" ", "-") not in anchors(target):
                    bad.append(f"{where}: docs/{doc}.md has no section {section!r}")
    assert bad == []
