"""``vintage --server URL``: the command line as a client of a real ``vintage serve`` on
loopback, as the key's principal. Its output is the local command's on the same store (facts,
history, asof, explain in every format, impact, audit, trace, memories, keys, ingest, retract);
a refusal is one line with the local exit code; a command the API does not serve yet is
refused, naming it, and so is an option it cannot honour."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

from tests.test_http_api import KPIS
from tests.test_http_serve import ROOT, free_port, up
from tests.test_mcp import over_mcp
from vintage.graph.access import create_key
from vintage.graph.retrieval.embedder import minilm
from vintage.graph.store.backends import open_store
from vintage.mcp.server import build_server

CLI = [sys.executable, "-c", "from vintage.cli.main import main; main()"]
REMEMBER = ["remember", "preference", "user:42", "shipping.preference", "ship to the office",
            "--source-kind", "user_message", "--source-id", "msg-1", "--owner", "user:42",
            "--reason", "asked", "--observed-at", "2026-01-01T00:00:00Z", "--json"]


@dataclass
class Served:
    base: str
    directory: str
    writer: str
    agent: str
    admin: str


def env() -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith("VINTAGE_")}
    return kept | {"COLUMNS": "240"}  # a table as wide as its cells, not cut to 80


def vintage(*args: str, key: str | None = None) -> subprocess.CompletedProcess[str]:
    extra = {"VINTAGE_KEY": key} if key else {}
    return subprocess.run([*CLI, *args], cwd=ROOT, env=env() | extra, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    directory = str(tmp_path_factory.mktemp("served") / "store")
    store = open_store(directory)
    _, writer = create_key(store, "acme", "writer", user="42", actor="test")
    _, agent = create_key(store, "acme", "agent", user="42", actor="test")
    _, admin = create_key(store, "acme", "admin", actor="test")
    store.close()
    table = tmp_path_factory.mktemp("kpis") / "kpis.csv"
    table.write_text(KPIS)
    loaded = vintage("--store", directory, "--tenant", "acme", "ingest", "facts", str(table))
    assert loaded.returncode == 0, loaded.stderr
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([*CLI, "--store", directory, "serve", "--port", str(port)],
                              cwd=ROOT, env=env(), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    try:
        up(base, server)
        yield Served(base, directory, writer, agent, admin)
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=30)


def test_remember_then_memories_then_search_run_over_the_server(served: Served) -> None:
    written = vintage("--server", served.base, *REMEMBER, key=served.writer)
    assert written.returncode == 0, written.stderr
    assert '"decision": "active"' in written.stdout
    listed = vintage("--server", served.base, "memories", "user:42", key=served.writer)
    assert listed.returncode == 0, listed.stderr
    assert "ship to the office" in listed.stdout and "memories of user:42" in listed.stdout
    found = vintage("--server", served.base, "search", "shipping preference", "--json",
                    key=served.writer)
    assert found.returncode == 0, found.stderr
    assert '"value": "ship to the office"' in found.stdout


def test_a_bad_key_is_one_line_and_exit_2(served: Served) -> None:
    refused = vintage("--server", served.base, "--key", "vk_nope", "memories", "user:42")
    assert refused.returncode == 2
    assert refused.stderr.strip() == ("error: No valid API key: invalid or revoked API key "
                                      "(HTTP 401)")
    assert refused.stdout == ""


def test_an_agent_key_may_not_forget_over_the_server(served: Served) -> None:
    refused = vintage("--server", served.base, "forget", "--reason", "erase",
                      "--subject", "user:42", "--key", "shipping.preference", key=served.agent)
    assert refused.returncode == 2
    assert "forget needs a writer or admin key, not an agent key (HTTP 403)" in refused.stderr


def test_a_tenant_other_than_the_keys_is_refused_not_dropped(served: Served) -> None:
    """A memory meant for t2 was written to the key's tenant, and t2's reads answered with
    the key's data: the tenant is the key's, and naming another is an error."""
    for command in (["memories", "user:42"], REMEMBER):
        refused = vintage("--server", served.base, "--tenant", "t2", *command,
                          key=served.writer)
        assert (refused.returncode, refused.stdout) == (2, "")
        assert refused.stderr == ("error: --tenant t2: over --server the tenant is the key's "
                                  "(acme); give that key's tenant or none\n")
    same = vintage("--server", served.base, "--tenant", "acme", "memories", "user:42",
                   key=served.writer)
    assert same.returncode == 0, same.stderr


def test_a_command_not_served_yet_is_refused_naming_it(served: Served) -> None:
    refused = vintage("--server", served.base, "sources", "trusted", key=served.admin)
    assert refused.returncode == 2
    assert refused.stderr.startswith(
        "error: vintage sources trusted is not available over --server yet")


def test_no_server_answering_is_exit_69(served: Served) -> None:
    gone = vintage("--server", f"http://127.0.0.1:{free_port()}", "memories", "user:42",
                   key=served.writer)
    assert gone.returncode == 69
    assert len(gone.stderr.strip().splitlines()) == 1


def local_copy(served: Served, tmp_path: Path) -> str:
    """The served store is locked by the server: the local command reads a copy of it."""
    copy = str(tmp_path / "copy")
    for suffix in ("", ".keys"):  # the store and the key file its memories are sealed with
        if Path(served.directory + suffix).exists():  # no key file until a memory is sealed
            subprocess.run(["cp", "-r", served.directory + suffix, copy + suffix], check=True)
    return copy


def same_output(served: Served, tmp_path: Path, key: str, commands: list[list[str]],
                local: tuple[str, ...] = ()) -> list[str]:
    """Each command run over the server, then on a copy of its store as the owner (with
    ``local``, the scope the key binds): the outputs are the same; they are returned."""
    remote = [vintage("--server", served.base, *c, key=key) for c in commands]
    for done in remote:
        assert done.returncode == 0, done.stderr
    copy = local_copy(served, tmp_path)
    for command, done in zip(commands, remote, strict=True):
        here = vintage("--store", copy, "--tenant", "acme", *command, *local)
        assert here.returncode == 0, here.stderr
        assert done.stdout == here.stdout, command
    return [done.stdout for done in remote]


def test_over_the_server_memories_prints_what_the_local_command_prints(
    served: Served, tmp_path: Path,
) -> None:
    (listed,) = same_output(served, tmp_path, served.writer,
                            [["memories", "user:42", "--json"]], local=("--user", "42"))
    assert "ship to the office" in listed


def test_over_the_server_a_search_with_nothing_relevant_prints_what_the_local_one_prints(
    served: Served, tmp_path: Path,
) -> None:
    asked = ["search", "what is the name of the user's cat"]
    text, as_json = same_output(served, tmp_path, served.writer, [asked, [*asked, "--json"]],
                                local=("--user", "42"))
    assert text.startswith("nothing relevant found")
    assert json.loads(as_json)["nothing_relevant"] is True


REVENUE = ["us-gaap:Revenues", "--subject", "PAY"]


def test_over_the_server_facts_history_and_asof_print_what_the_local_commands_print(
    served: Served, tmp_path: Path,
) -> None:
    outputs = same_output(served, tmp_path, served.admin, [
        ["facts", *REVENUE, "--cutoff", "2024-05-01"],
        ["facts", *REVENUE, "--json"],
        ["history", *REVENUE, "--period", "2024-01-01..2024-04-01", "--unit", "USD"],
        ["history", *REVENUE, "--period", "2024-01-01..2024-04-01", "--unit", "USD", "--json"],
        ["asof", "revenue", "--subject", "PAY", "--cutoff", "2025-03-01", "--period", "FY2024"],
        ["asof", "revenue", "--subject", "PAY", "--cutoff", "2025-03-01", "--period", "FY2024",
         "--json"]])
    assert "us-gaap:Revenues as of 2024-05-01" in outputs[0] and "er-q1" in outputs[0]
    assert outputs[1].count('"predicate": "us-gaap:Revenues"') == 5
    assert '"value": 460' in outputs[5]
    assert '"value": 105' in outputs[3]  # the corrected Q1 revenue, in its history
    missed = vintage("--server", served.base, "history", *REVENUE, "--unit", "USD",
                     "--period", "2024-01-01..2024-03-31", key=served.admin)
    assert missed.returncode == 2 and "half-open" in missed.stderr and missed.stdout == ""


def fixed_revenue(served: Served) -> str:
    """The id of the corrected Q1 revenue (105)."""
    found = vintage("--server", served.base, "facts", *REVENUE, "--json", key=served.admin)
    assert found.returncode == 0, found.stderr
    (fixed,) = (f["id"] for f in json.loads(found.stdout) if f["value"] == 105)
    return str(fixed)


def test_over_the_server_explain_prints_its_tree_json_prov_and_graphml_as_locally(
    served: Served, tmp_path: Path,
) -> None:
    fixed, at = fixed_revenue(served), ["--system-at", "2100-01-01"]
    tree, as_json, prov, graph, versions = same_output(served, tmp_path, served.admin, [
        ["explain", fixed], ["explain", fixed, "--json", *at],
        ["explain", fixed, "--prov", *at], ["explain", fixed, "--graphml", *at],
        ["explain", fixed, "--format", "csv", *at]])
    assert "er-q1-fix" in tree and "corrects" in tree
    assert json.loads(as_json)["root"]["fact"]["id"] == fixed
    assert "entity" in json.loads(prov)
    assert graph.startswith("<graphml")
    assert versions.startswith("depth,parent,role,id,") and f"\n0,,,{fixed}," in versions


def test_over_the_server_impact_and_audit_print_what_the_local_commands_print(
    served: Served, tmp_path: Path,
) -> None:
    fixed = fixed_revenue(served)
    gift = [*REMEMBER[:3], "gift.wrap", "no gift wrap", *REMEMBER[5:]]
    written = vintage("--server", served.base, *gift, key=served.writer)
    assert written.returncode == 0, written.stderr
    about = ["--subject", "user:42", "--key", "gift.wrap"]
    by_source, by_fact, trail, table, rows = same_output(served, tmp_path, served.admin, [
        ["impact", "--source", "er-q1-fix"], ["impact", "--fact", fixed],
        ["audit", *about, "--json"], ["audit", *about],
        ["impact", "--source", "er-q1-fix", "--format", "csv"]])
    assert "impact of source er-q1-fix: 1 changed" in by_source
    assert f"impact of fact {fixed}" in by_fact
    (event,) = json.loads(trail)
    assert event["action"] == "record" and event["actor"].startswith("key:")
    assert "remember" in table
    assert rows.startswith("entry,depth,id,") and any(  # the version it filed, whole
        line.startswith("revised,") and f",{fixed}," in line for line in rows.splitlines())


def test_over_the_server_an_unknown_fact_is_one_line_and_exit_2(served: Served) -> None:
    missing = vintage("--server", served.base, "explain", "f-nope", key=served.admin)
    assert missing.returncode == 2
    assert missing.stderr.strip().endswith("(HTTP 404)")
    assert len(missing.stderr.strip().splitlines()) == 1


def test_over_the_server_the_memory_verbs_answer_as_the_local_commands_do(
    served: Served,
) -> None:
    def over(*args: str, key: str = served.writer) -> str:
        done = vintage("--server", served.base, *args, key=key)
        assert done.returncode == 0, done.stderr
        return done.stdout
    plan = [*REMEMBER[:3], "plan", "pro", *REMEMBER[5:]]
    first = json.loads(over(*plan))["memory"]
    corrected = json.loads(over("correct", first, "enterprise", "--source-id", "msg-2",
                                "--json"))
    assert (corrected["decision"], corrected["revision"]) == ("active", 2)
    assert over("demote", "user:42", "plan", "--reason", "rarely useful", "--weight",
                "0.2").startswith(f"user:42 plan ({corrected['memory']}): weight 1 -> 0.2")
    assert over("review").strip() == "no open conflicts"
    summary = json.loads(over("summarise", "user:42", "--key", "plan", "--json"))
    assert "enterprise" in summary["value"]
    assert over("invalidate", "user:42", "plan", "--reason", "cancelled").startswith(
        "invalidated user:42 plan;")
    stale = vintage("--server", served.base, "correct", first, "basic", "--source-id",
                    "msg-3", key=served.writer)
    assert stale.returncode in (2, 3) and len(stale.stderr.strip().splitlines()) <= 1
    erased = over("forget", "--source", "msg-2", "--reason", "withdrawn")
    assert ("(by source); kept 0 another source also said (0 of them no longer held); "
            "tombstone ") in erased


def test_over_the_server_a_context_trace_prints_what_the_local_command_prints(
    served: Served, tmp_path: Path,
) -> None:
    assert vintage("--server", served.base, *REMEMBER, key=served.writer).returncode == 0
    asked = urllib.request.Request(
        f"{served.base}/v1/context", method="POST", data=json.dumps({
            "query": "shipping preference", "budget": 400, "for_thread": "support-7"}).encode(),
        headers={"Authorization": f"Bearer {served.writer}",
                 "Content-Type": "application/json"})
    with urllib.request.urlopen(asked, timeout=60) as answer:
        pack = json.loads(answer.read())
    injection = pack["injection"]
    assert pack["items"], pack
    marked = vintage("--server", served.base, "used", injection, *pack["items"][:1],
                     key=served.writer)
    assert marked.returncode == 0, marked.stderr
    assert marked.stdout.startswith(f"marked used from context {injection}")
    trace, as_json, considered = same_output(served, tmp_path, served.writer, [
        ["trace", injection], ["trace", injection, "--json", "--item", "f-nope"],
        ["trace", injection, "--format", "csv"]])
    assert f"injection {injection}" in trace
    assert json.loads(as_json)["used"] == pack["items"][:1]
    assert considered.startswith("rank,id,score,signals,outcome\n")
    assert f",{pack['items'][0]}," in considered


def test_over_the_server_an_admin_key_creates_lists_and_revokes_keys_as_locally(
    served: Served, tmp_path: Path,
) -> None:
    made = vintage("--server", served.base, "keys", "create", "--role", "reader", "--user",
                   "7", "--name", "dashboards", "--json", key=served.admin)
    assert made.returncode == 0, made.stderr
    created = json.loads(made.stdout)
    assert (created["tenant"], created["role"], created["user"]) == ("acme", "reader", "7")
    assert created["actor"] == f"key:{created['key_id']}(dashboards)"
    listed, _ = same_output(served, tmp_path, served.admin, [["keys", "list"],
                                                             ["keys", "list", "--json"]])
    assert "keys of tenant acme" in listed and created["key_id"] in listed
    revoked = vintage("--server", served.base, "keys", "revoke", created["key_id"],
                      key=served.admin)
    assert revoked.returncode == 0, revoked.stderr
    assert revoked.stdout.startswith(f"revoked key {created['key_id']} (event ")
    refused = vintage("--server", served.base, "memories", "user:7", key=created["key"])
    assert refused.returncode == 2 and "(HTTP 401)" in refused.stderr
    writer = vintage("--server", served.base, "keys", "list", key=served.writer)
    assert writer.returncode == 2 and "(HTTP 403)" in writer.stderr


LPA = ROOT / "ingest" / "data" / "companyfacts" / "CIK0001997711_LPA.json.gz"
SHARES = ["dei:EntityCommonStockSharesOutstanding", "--subject", "LPA"]
GADGETS = """\
subject,predicate,value,unit,period_start,period_end,source_id,available_at,form,source_kind
GDG,us-gaap:Revenues,40,USD,2024-01-01,2024-03-31,gd-q1,2024-04-20,8-K,earnings_release
GDG,us-gaap:Revenues,45,USD,2024-04-01,2024-06-30,gd-q2,2024-07-20,8-K,earnings_release
"""


def here_and_there(served: Served, tmp_path: Path, command: list[str]) -> str:
    """``command`` run on a copy of the store taken just before, then over the server: both
    print the same; that output."""
    tmp_path.mkdir(exist_ok=True)
    copy = local_copy(served, tmp_path)
    done = vintage("--server", served.base, *command, key=served.admin)
    assert done.returncode == 0, done.stderr
    here = vintage("--store", copy, "--tenant", "acme", *command)
    assert here.returncode == 0, here.stderr
    assert done.stdout == here.stdout, command
    return done.stdout


def test_over_the_server_a_companyfacts_file_is_uploaded_then_its_facts_are_read(
    served: Served, tmp_path: Path,
) -> None:
    said = here_and_there(served, tmp_path, ["ingest", "companyfacts", str(LPA)])
    assert said.startswith("CIK0001997711_LPA.json.gz ingested: subject LPA; 3 sources;")
    found = vintage("--server", served.base, "facts", *SHARES, "--json", key=served.admin)
    assert found.returncode == 0, found.stderr
    assert {f["subject"] for f in json.loads(found.stdout)} == {"LPA"}


def test_over_the_server_a_table_is_ingested_retracted_and_restored_as_locally(
    served: Served, tmp_path: Path,
) -> None:
    table = tmp_path / "gadgets.csv"
    table.write_text(GADGETS)
    said = here_and_there(served, tmp_path / "ingest", ["ingest", "facts", str(table)])
    assert said.startswith("gadgets.csv ingested: subject GDG; 2 sources; 2 rows -> 2 new")
    values = ["facts", "us-gaap:Revenues", "--subject", "GDG", "--json"]
    reason = ["--source", "gd-q2", "--reason", "the release was withdrawn"]
    gone = here_and_there(served, tmp_path / "retract", ["retract", *reason])
    assert gone.startswith("1 facts left without support")
    held = vintage("--server", served.base, *values, key=served.admin)
    assert [f["value"] for f in json.loads(held.stdout)] == [40]
    back = here_and_there(served, tmp_path / "undo", ["retract", *reason, "--undo"])
    assert back.startswith("1 facts held again")
    held = vintage("--server", served.base, *values, key=served.admin)
    assert sorted(f["value"] for f in json.loads(held.stdout)) == [40, 45]


def test_over_the_server_an_option_the_api_cannot_honour_is_refused_naming_it(
    served: Served, tmp_path: Path,
) -> None:
    times = tmp_path / "accepted.csv"
    times.write_text("accession,accepted_at\n")
    refused = vintage("--server", served.base, "ingest", "companyfacts", str(LPA),
                      "--accepted", str(times), key=served.admin)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.startswith("error: --accepted is not available over --server")
    assert len(refused.stderr.strip().splitlines()) == 1


def test_over_the_server_an_agent_key_may_not_retract_and_is_told_in_one_line(
    served: Served,
) -> None:
    refused = vintage("--server", served.base, "retract", "--source", "er-q1", "--reason",
                      "r", key=served.agent)
    assert refused.returncode == 2 and "(HTTP 403)" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def test_over_the_server_a_table_the_job_refuses_is_one_line_and_exit_2(
    served: Served, tmp_path: Path,
) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(GADGETS.replace("40,USD", "forty,USD"))
    refused = vintage("--server", served.base, "ingest", "facts", str(bad), key=served.admin)
    assert refused.returncode == 2 and refused.stdout == "", refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert "(HTTP 4" in refused.stderr


def test_event_time_is_stated_read_and_corrected_over_the_server(served: Served) -> None:
    moved = [*REMEMBER[:3], "home.city", "Shanghai", *REMEMBER[5:8], "msg-city",
             *REMEMBER[9:], "--valid-from", "2025-03-01"]
    written = vintage("--server", served.base, *moved, key=served.writer)
    assert written.returncode == 0, written.stderr
    memory_id = json.loads(written.stdout)["memory"]
    before = ["memories", "user:42", "--key", "home.city", "--valid-at", "2025-01-15", "--json"]
    listed = vintage("--server", served.base, *before, key=served.writer)
    assert (listed.returncode, json.loads(listed.stdout)) == (0, []), listed.stderr
    fixed = vintage("--server", served.base, "correct", memory_id, "Shanghai", "--source-id",
                    "msg-city-2", "--valid-from", "2024-12-01", "--json", key=served.writer)
    assert fixed.returncode == 0, fixed.stderr
    (held,) = json.loads(vintage("--server", served.base, *before, key=served.writer).stdout)
    assert (held["value"], held["valid_from"]) == ("Shanghai", "2024-12-01T00:00:00Z")
    pack = vintage("--server", served.base, "context", "--query", "where does the user live",
                   "--budget", "300", "--for-thread", "t-1", "--valid-at", "2024-06-01",
                   key=served.writer)
    assert pack.returncode == 0 and "Shanghai" not in pack.stdout, pack.stderr
    backwards = vintage("--server", served.base, *moved[:-2], "--valid-from", "2025-03-01",
                        "--valid-to", "2025-01-01", key=served.writer)
    assert backwards.returncode == 2 and backwards.stderr.count("\n") == 1
    assert "must be after valid_from" in backwards.stderr


def claim(tool: str, key: str) -> list[str]:
    return ["remember", "fact", "policy:returns", key, "7 days full refund", "--source-kind",
            "tool_result", "--source-id", f"call-{key}", "--tool", tool, "--tool-version", "v2",
            "--owner", "ops", "--reason", "policy", "--observed-at", "2026-01-01T00:00:00Z",
            "--user", "42"]


def test_the_cli_client_http_and_mcp_hold_a_made_up_tools_result_alike(
    served: Served, tmp_path: Path,
) -> None:
    store = open_store(local_copy(served, tmp_path))  # the server holds its own store
    try:
        mcp = build_server(store, served.agent, minilm())
        body = {"kind": "fact", "subject": "policy:returns", "key": "refund.mcp",
                "value": "7 days full refund", "source_kind": "tool_result",
                "source_id": "call-mcp", "tool": "refund-oracle", "tool_version": "v2",
                "owner": "ops", "retention_reason": "policy",
                "observed_at": "2026-01-01T00:00:00Z", "user": "42"}
        by_mcp = over_mcp(mcp, lambda c: c.call_tool("remember", body)).structured_content
    finally:
        store.close()
    by_cli = vintage("--server", served.base, *claim("refund-oracle", "refund.cli"), "--json",
                     key=served.agent)
    assert by_cli.returncode == 0, by_cli.stderr
    http = httpx2.post(f"{served.base}/v1/memories", json=body | {
        "key": "refund.http", "source_id": "call-http"},
        headers={"Authorization": f"Bearer {served.agent}"}, timeout=30)
    assert http.status_code == 201, http.text
    said = [(d["decision"], d["reason"]) for d in (json.loads(by_cli.stdout), http.json(),
                                                   by_mcp)]
    assert said == [("candidate", "new fact; held as a candidate: tool refund-oracle is not "
                                  "registered in this tenant (vintage tools register "
                                  "refund-oracle)")] * 3


def test_an_admin_registers_lists_and_withdraws_a_tool_over_the_server(served: Served) -> None:
    made = vintage("--server", served.base, "tools", "register", "policy-api", "--version",
                   "v2", "--reporter", "support-bot", key=served.admin)
    assert made.returncode == 0 and made.stdout.startswith(
        "registered tool policy-api version v2 (event e"), made.stderr
    listed = vintage("--server", served.base, "tools", "list", "--json", key=served.admin)
    assert json.loads(listed.stdout) == [{"name": "policy-api", "version": "v2",
                                          "reporters": ["support-bot"],
                                          "event": json.loads(listed.stdout)[0]["event"]}]
    rows = vintage("--server", served.base, "tools", "list", "--format", "csv", key=served.admin)
    assert rows.stdout == ("name,version,reporters,event\npolicy-api,v2,support-bot,"
                           f"{json.loads(listed.stdout)[0]['event']}\n"), rows.stderr
    refused = vintage("--server", served.base, "tools", "list", key=served.writer)
    assert refused.returncode == 2 and "needs an admin key" in refused.stderr
    gone = vintage("--server", served.base, "tools", "unregister", "policy-api", "--version",
                   "v2", key=served.admin)
    assert gone.returncode == 0 and "no longer registered: tool policy-api" in gone.stdout
