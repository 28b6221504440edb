"""The service example of docs/service.md runs as written, in bash: a memory, a key, ``vintage
serve`` in the background, and curl's search as that key.

It cannot run in process as the other examples do (``tests/test_readme.py``): it serves until
interrupted, and its commands share a shell (``export``, ``&``, ``$VINTAGE_KEY``). So each of
its lines runs in bash, in a temporary folder holding a link to the checkout's ``.venv`` (the
store, ``./.vintage/store``, lands there), with two substitutions a reader makes too: the key
the ``keys create`` line printed for ``vk_…``, and a free port for 8000. The line that starts
the server is followed by a wait for its ``/healthz``; the server is stopped at the end.
Output comments (``#`` and two spaces) are checked as in the README test.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

from tests.test_http_serve import free_port, up
from tests.test_readme import ROOT, Block, blocks, commands_text, printed

PAGE = ROOT / "docs" / "service.md"
PLACEHOLDER = "vk_…"


def the_example() -> Block:
    (block,) = [b for b in blocks(PAGE) if b.lang == "bash" and " serve " in b.code]
    return block


def test_the_service_example_runs_as_written_in_bash(tmp_path: Path) -> None:
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    port = str(free_port())
    env = {k: v for k, v in os.environ.items() if not k.startswith("VINTAGE_")}
    key, server, ran = "", None, []
    try:
        for line, written, expected in commands_text(the_example()):
            code = written.replace("8000", port)
            if code.startswith("export "):
                name, _, value = code.removeprefix("export ").strip().partition("=")
                env[name] = value.replace(PLACEHOLDER, key)
                continue
            if code.endswith("&"):
                server = subprocess.Popen(["bash", "-c", code.removesuffix("&")], cwd=tmp_path,
                                          env=env, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, start_new_session=True)
                up(f"http://127.0.0.1:{port}", server)
                continue
            done = subprocess.run(["bash", "-c", code], cwd=tmp_path, env=env,
                                  capture_output=True, text=True, timeout=300, check=False)
            shown = f"{PAGE.name}:{line}: {code}\n{done.stdout}{done.stderr}"
            assert done.returncode == 0, shown
            for text in expected:
                assert printed(text, done.stdout + done.stderr), f"{text!r} not printed: {shown}"
            key = next(iter(re.findall(r"^vk_\S+$", done.stdout, re.M)), key)
            ran.append(code)
    finally:
        if server is not None:
            os.killpg(server.pid, signal.SIGTERM)
            server.communicate(timeout=30)
    assert key and len(ran) == 3  # remember, keys create, curl
