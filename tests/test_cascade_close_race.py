"""A cascade that finds one of its facts closed by another writer refuses the whole change.

Both Neo4j paths decide on what they read, then close: the server-side procedure
(``vintage.cascade_close``) from the nodes it holds, the pure-Cypher path with
``close_knowledge``'s ``UNWIND``. A writer that closed the same fact in between has committed by
the time the cascade holds that fact's write lock, and the cascade must see its close, not
overwrite it: a ``ConflictError``, and nothing of the restatement written. The race is made, not
hoped for: a second transaction closes the derived fact and holds it, uncommitted, while the
restatement's cascade reads and then waits on that fact's lock. (The Cypher path read its guard
before taking the lock, and overwrote the other writer's close, until it took the lock first.)"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from tests.factories import QUARTER, filed_base
from vintage.graph.core.labels import FACT
from vintage.graph.core.model import Scope
from vintage.graph.core.temporal import parse_instant
from vintage.graph.derivations.derived import Output, derive
from vintage.graph.derivations.recipes import expression
from vintage.graph.neo4j.cypher import CLOSED_FIRST, Query
from vintage.graph.neo4j.store import Neo4jStore
from vintage.graph.store.protocol import ConflictError
from vintage.graph.writes.semantics import record

OTHER_CLOSE = "2030-01-01T00:00:00Z"




def blocked(session_of: Neo4jStore, within: float = 60.0) -> bool:
    """Whether a transaction is seen waiting on a lock (the cascade, having read the fact open)
    before ``within`` seconds pass: the server says so, no sleep guesses it."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        rows = session_of.run(Query("SHOW TRANSACTIONS YIELD status WHERE status STARTS WITH "
                                    "'Blocked' RETURN count(*) AS n", {}))
        if rows[0]["n"]:
            return True
        time.sleep(0.05)
    return False




def test_a_fact_closed_by_another_writer_while_the_cascade_waits_is_a_conflict_not_overwritten(
    cascade_paths: Neo4jStore, scope: Scope,
) -> None:
    store = cascade_paths
    (base,) = record(store, scope, filed_base(1, "10-K", 0), actor="t").created
    derived = derive(store, scope, expression("double", "2x", "x * 2"), {"x": base},
                     Output("A", "double", QUARTER[0], QUARTER[1], "USD"), actor="t").fact.id
    outcome: list[BaseException | None] = []

    def restate() -> None:
        try:
            record(store, scope, filed_base(2, "10-K/A", 30), actor="t")
            outcome.append(None)
        except BaseException as exc:  # handed to the test thread
            outcome.append(exc)

    with store.driver.session(database=store.database) as session:
        other = session.begin_transaction()
        other.run(f"MATCH (f:{FACT} {{tenant: $tenant, id: $id}}) "
                  "SET f.superseded_at = datetime($at)",
                  tenant=scope.tenant, id=derived, at=OTHER_CLOSE).consume()
        waiting = threading.Thread(target=restate)
        waiting.start()
        assert blocked(session_of=store), "the cascade never waited on the other writer's lock"
        assert not outcome
        other.commit()
        waiting.join(timeout=60)
    assert len(outcome) == 1
    assert isinstance(outcome[0], ConflictError)
    assert CLOSED_FIRST in str(outcome[0])
    facts = store.reading(scope.tenant, lambda tx: tx.get_facts([base, derived]))
    assert facts[base].superseded_at is None  # the restatement rolled back whole
    assert facts[derived].superseded_at == parse_instant(OTHER_CLOSE)  # the other's close kept
    assert facts[derived].superseded_recorded_at is None


def test_the_conflict_read_from_the_server_is_the_one_cascade_java_raises() -> None:
    java = Path(__file__).parents[1] / "docker/neo4j-plugin/src/main/java/dev/vintage/neo4j"
    assert f'"{CLOSED_FIRST}"' in (java / "Cascade.java").read_text(encoding="utf-8")
