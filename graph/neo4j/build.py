"""Build and command line of the development Neo4j 5.26 launcher and of Vintage's Neo4j plugin.

One Maven build (``docker/pom.xml``) packages the plugin jar (``docker/neo4j-plugin``), compiles
the one-class launcher (``docker/neo4j-embedded``) and resolves Neo4j's classpath once (no shaded
jar: it would break Neo4j's META-INF/services); ``java_command`` is how
:mod:`vintage.graph.neo4j.launcher` runs it, with Neo4j's own JVM flags, a small heap and page
cache, and the plugin loaded from a plugins/ directory as a server loads it. Both live in a
source checkout, not in the installed package: from a wheel, :func:`docker_dir` says so.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from vintage.graph.core.errors import UserError
from vintage.graph.neo4j.procedures import PLUGIN_VERSION

MAIN_CLASS = "dev.vintage.neo4j.Launcher"
READY_MARKER = "VINTAGE_NEO4J_READY "
HOME_ENV = "VINTAGE_NEO4J_HOME"
HEAP_ENV = "VINTAGE_NEO4J_HEAP"
PASSWORD_ENV = "VINTAGE_NEO4J_PASSWORD"
PAGECACHE_ENV = "VINTAGE_NEO4J_PAGECACHE"
TX_MEMORY_ENV = "VINTAGE_NEO4J_TX_MEMORY"  # db.memory.transaction.max; unset: Neo4j's default

_DEFAULT_HEAP = "768m"
_INITIAL_HEAP_BYTES = 128 * 1024**2
_LOG_TAIL_CHARS = 4000
_SIZE_RE = re.compile(r"^(\d+)([kmg]?)\Z", re.IGNORECASE)

# Neo4j 5.26's own `server.jvm.additional` defaults from neo4j.conf, minus the ones that do not
# fit a small dev/test server: -XX:+AlwaysPreTouch would commit the whole heap up front, and
# the TLS / flight-recorder flags concern features this server never enables.
_NEO4J_JVM_FLAGS: tuple[str, ...] = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
)


class LauncherError(UserError, RuntimeError):
    """The local Neo4j server could not be built, started or stopped."""


@dataclass(frozen=True)
class BuildResult:
    classes_dir: Path
    classpath: str
    rebuilt: bool
    seconds: float


def docker_dir() -> Path:
    """The checkout's docker/ folder (the Maven build), or a clear refusal outside a checkout."""
    found = Path(__file__).resolve().parents[2] / "docker"
    if not (found / "pom.xml").is_file():
        raise LauncherError(
            "the development Neo4j server runs from a source checkout of Vintage (docker/pom.xml "
            "not found beside the package); in a deployment run Neo4j 5.26 with the plugin jar "
            "in its plugins/ directory (docs/operations.md) and pass --store bolt://HOST:7687")
    return found


def launcher_dir() -> Path:
    return docker_dir() / "neo4j-embedded"


def plugin_dir() -> Path:
    return docker_dir() / "neo4j-plugin"


def plugin_jar() -> Path:
    """The plugin jar the build made (``vintage-neo4j-plugin-<version>.jar``)."""
    return plugin_dir() / "target" / f"vintage-neo4j-plugin-{PLUGIN_VERSION}.jar"


# --------------------------------------------------------------------------- build


def _classes_dir() -> Path:
    return launcher_dir() / "target" / "classes"


def _classpath_file() -> Path:
    return launcher_dir() / "target" / "classpath.txt"


def _main_class_file() -> Path:
    return _classes_dir() / Path(*MAIN_CLASS.split(".")).with_suffix(".class")


def log_tail(text: str, limit: int = _LOG_TAIL_CHARS) -> str:
    text = text.strip()
    return text if len(text) <= limit else "...\n" + text[-limit:]


def _read_classpath() -> str | None:
    try:
        return _classpath_file().read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None


def _is_stale() -> bool:
    outputs = [_classpath_file(), _main_class_file(), plugin_jar()]
    if not all(p.exists() for p in outputs):
        return True
    root = docker_dir()
    inputs = [root / "pom.xml", *root.glob("*/pom.xml"),
              *(p for p in root.glob("*/src/main/**/*") if p.is_file())]
    newest_input = max(p.stat().st_mtime for p in inputs)
    if min(p.stat().st_mtime for p in outputs) < newest_input:
        return True
    # A wiped or pruned ~/.m2 leaves classpath.txt pointing at jars that no longer exist.
    classpath = _read_classpath() or ""
    return not all(Path(jar).exists() for jar in classpath.split(os.pathsep) if jar)


def _require_tool(name: str) -> str:
    if name == "java":
        java_home = os.environ.get("JAVA_HOME")
        if java_home and (Path(java_home) / "bin" / "java").is_file():
            return str(Path(java_home) / "bin" / "java")
    found = shutil.which(name)
    if found is None:
        raise LauncherError(
            f"`{name}` is not on PATH; the local Neo4j server needs Java 17+ and Maven 3.8+ "
            "(or set NEO4J_URI to use an existing server)"
        )
    return found


def build(force: bool = False) -> BuildResult:
    """Package the plugin, compile the launcher and resolve Neo4j's classpath, only when
    something changed. The plugin's JUnit tests are not run here (``make java-check`` runs
    them): a test fixture that builds must not wait for them."""
    began = time.monotonic()
    _require_tool("java")
    if force or _is_stale():
        mvn = _require_tool("mvn")
        root = docker_dir()
        command = [
            mvn, "-q", "-B", "-f", str(root / "pom.xml"), "-DskipTests",
            "package", "dependency:build-classpath", "-Dmdep.outputFile=target/classpath.txt",
        ]  # fmt: skip
        try:
            done = subprocess.run(
                command, cwd=root, capture_output=True, text=True, check=False, timeout=1800
            )
        except subprocess.TimeoutExpired as exc:
            raise LauncherError(f"build timed out: {' '.join(command)}") from exc
        if done.returncode == 0:
            # Maven leaves an output it did not need to change untouched (the classpath file,
            # the jar, an incrementally compiled class), which would read as stale forever.
            for output in (_classpath_file(), _main_class_file(), plugin_jar()):
                if output.exists():
                    output.touch()
        if done.returncode != 0 or _is_stale():
            raise LauncherError(
                f"build failed (exit {done.returncode}): {' '.join(command)}\n"
                f"{log_tail(done.stdout + done.stderr)}"
            )
        rebuilt = True
    else:
        rebuilt = False
    classpath = _read_classpath()
    if classpath is None:  # pragma: no cover - _is_stale() guarantees the file exists
        raise LauncherError(f"missing {_classpath_file()} after build")
    return BuildResult(_classes_dir(), classpath, rebuilt, time.monotonic() - began)


# --------------------------------------------------------------------------- command line


def _parse_size(value: str) -> int:
    match = _SIZE_RE.match(value.strip())
    if match is None:
        raise LauncherError(f"invalid size {value!r}; expected e.g. 512m or 1g")
    number, unit = int(match.group(1)), match.group(2).lower()
    return number * {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[unit]


def java_command(port: int, home: Path, pagecache: str = "64m",
                 plugins: Path | None = None) -> list[str]:
    classpath = _read_classpath()
    if classpath is None:
        raise LauncherError("the launcher is not built yet; call build() first")
    _parse_size(pagecache)
    heap = os.environ.get(HEAP_ENV) or _DEFAULT_HEAP
    # -Xms above -Xmx makes the JVM refuse to start, so a tiny override lowers both.
    initial = min(_parse_size(heap), _INITIAL_HEAP_BYTES)
    return [
        _require_tool("java"),
        f"-Xms{initial // 1024}k",
        f"-Xmx{heap}",
        *_NEO4J_JVM_FLAGS,
        "-cp",
        os.pathsep.join([str(_classes_dir()), classpath]),
        MAIN_CLASS,
        "--port", str(port),
        "--home", str(home),
        "--pagecache", pagecache,
        *_tx_memory(),
        *(["--plugins", str(plugins)] if plugins is not None else []),
    ]  # fmt: skip


def _tx_memory() -> list[str]:
    value = os.environ.get(TX_MEMORY_ENV)
    if not value:
        return []
    _parse_size(value)
    return ["--tx-memory", value]
