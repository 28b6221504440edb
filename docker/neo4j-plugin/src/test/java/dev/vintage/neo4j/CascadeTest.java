package dev.vintage.neo4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

/**
 * {@code vintage.cascade_close} and {@code vintage.cascade} decide what the Python cascade decides
 * (graph/writes/cascade.py {@code plan} on the embedded store, its subgraph from
 * graph/embedded/downstream.py {@code by_walk}): the same facts in the same order, each at the
 * same depth, by the same path, ending at the same instant; and the close writes the same
 * stamps {@code cascade.close} writes.
 *
 * <p>tests/golden/cascade_cases.json, written by tests/test_cascade_twins.py: the statements
 * the Python Neo4j store sends to lay seeded derivation graphs in four tenants (one over the
 * same ids as another, one deeper than the walk's limit and wider than a record, one with a
 * cycle), and per seeded change the call {@code Neo4jTx.close_cascade} sends, its read-only
 * twin, and Python's decisions. Each close runs in a transaction rolled back after its stamps
 * are read, so every case meets the graph as laid.
 */
class CascadeTest {
    private static final List<String> COLUMNS = List.of("id", "subject", "predicate", "value",
            "unit", "depth", "path", "end");

    /** One change: its two calls and what Python decided (or the refusal it raised). */
    private record Case(String name, String tenant, RankCases.Query call, RankCases.Query read,
                        List<Map<String, Object>> decided, Map<String, Object> closes,
                        String refused) {
    }

    /** What a call returned: its rows, flattened from its records, and how many records. */
    private record Answer(List<Map<String, Object>> rows, int records) {
    }

    private static GraphDatabaseService db;
    private static final List<Case> CASES = new ArrayList<>();

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void layEveryGraph() throws IOException {
        db = Server.db();
        JsonNode body = new ObjectMapper().readTree(Path.of(System.getProperty("vintage.golden"),
                "cascade_cases.json").toFile());
        List<String> texts = new ArrayList<>();
        body.get("texts").forEach(t -> texts.add(t.asText()));
        for (JsonNode q : body.get("schema")) {
            run(RankCases.query(q, texts));
        }
        db.executeTransactionally("CALL db.awaitIndexes(300)");
        for (JsonNode q : body.get("setup")) {
            run(RankCases.query(q, texts));
        }
        for (JsonNode c : body.get("cases")) {
            List<Map<String, Object>> decided = new ArrayList<>();
            if (c.has("decided")) {
                c.get("decided").forEach(r -> decided.add((Map<String, Object>) RankCases.value(r)));
            }
            CASES.add(new Case(c.get("name").asText(), c.get("tenant").asText(),
                    RankCases.query(c.get("call"), texts), RankCases.query(c.get("read"), texts),
                    decided, c.has("closes")
                            ? new TreeMap<>((Map<String, Object>) RankCases.value(c.get("closes")))
                            : Map.of(),
                    c.has("refused") ? c.get("refused").asText() : null));
        }
    }

    @Test
    void theReadOnlyCascadeDecidesEveryChangeAsPythonDoes() {
        List<String> parted = new ArrayList<>();
        int decided = 0;
        for (Case c : CASES) {
            if (c.refused() == null) {
                List<Map<String, Object>> rows = db.executeTransactionally(c.read().text(),
                        c.read().params(), CascadeTest::answer).rows();
                compare(c, rows, parted);
                decided += rows.size();
            }
        }
        assertEquals(List.of(), parted);
        assertTrue(decided > 500, decided + " facts decided in all");
    }

    @Test
    void theCloseDecidesTheSameAndWritesTheStampsPythonWrites() {
        List<String> parted = new ArrayList<>();
        int records = 0;
        int closed = 0;
        for (Case c : CASES) {
            if (c.refused() != null) {
                continue;
            }
            try (Transaction tx = db.beginTx()) {
                Map<String, Object> before = stamps(tx, c.tenant());
                Answer answer = answer(tx.execute(c.call().text(), c.call().params()));
                Map<String, Object> after = stamps(tx, c.tenant());
                tx.rollback();
                compare(c, answer.rows(), parted);
                after.entrySet().removeIf(e -> e.getValue().equals(before.get(e.getKey())));
                if (!after.equals(c.closes())) {
                    parted.add(c.name() + " closes: plugin " + after + ", Python " + c.closes());
                }
                records = Math.max(records, answer.records());
                closed += after.size();
            }
        }
        assertEquals(List.of(), parted);
        assertTrue(records > 1, "no cascade came back in more than one record");
        assertTrue(closed > 300, closed + " facts closed in all");
    }

    @Test
    void aCycleIsRefusedByBothWithTheMessagePythonRecognises() {
        int refused = 0;
        for (Case c : CASES) {
            if (c.refused() == null) {
                continue;
            }
            for (RankCases.Query q : List.of(c.call(), c.read())) {
                try (Transaction tx = db.beginTx()) {
                    RuntimeException e = assertThrows(
                            RuntimeException.class, () -> answer(tx.execute(q.text(), q.params())),
                            c.name());
                    assertTrue(String.valueOf(e.getMessage()).contains(c.refused())
                            || String.valueOf(e.getCause()).contains(c.refused()), e::toString);
                    assertEquals(Cascade.CYCLE, c.refused());
                }
                refused++;
            }
        }
        assertEquals(2, refused);
    }

    private static void compare(Case c, List<Map<String, Object>> rows, List<String> parted) {
        if (!rows.equals(c.decided())) {
            int i = 0;
            while (i < Math.min(rows.size(), c.decided().size())
                    && rows.get(i).equals(c.decided().get(i))) {
                i++;
            }
            parted.add(c.name() + ": " + rows.size() + " rows, Python " + c.decided().size()
                    + "; first difference at " + i + ": plugin "
                    + (i < rows.size() ? rows.get(i) : "none") + ", Python "
                    + (i < c.decided().size() ? c.decided().get(i) : "none"));
        }
    }

    private static void run(RankCases.Query q) {
        db.executeTransactionally(q.text(), q.params());
    }

    /** A call's records, each a chunk of facts as columns, as rows in order. */
    @SuppressWarnings("unchecked")
    private static Answer answer(Result result) {
        List<Map<String, Object>> rows = new ArrayList<>();
        int records = 0;
        while (result.hasNext()) {
            Map<String, Object> record = result.next();
            records++;
            List<Object> ids = (List<Object>) record.get("id");
            for (int i = 0; i < ids.size(); i++) {
                assertFalse((Boolean) ((List<Object>) record.get("sealed")).get(i),
                        "no fact of the case file is sealed");
                Map<String, Object> row = new LinkedHashMap<>();
                for (String column : COLUMNS) {
                    row.put(column, ((List<Object>) record.get(column)).get(i));
                }
                rows.add(row);
            }
        }
        return new Answer(rows, records);
    }

    /** Each of the tenant's facts' three stamps a close may write, in microseconds. */
    private static Map<String, Object> stamps(Transaction tx, String tenant) {
        Map<String, Object> out = new HashMap<>();
        tx.execute("""
                MATCH (f:Fact {tenant: $t})
                RETURN f.id AS id, [f.superseded_at, f.superseded_recorded_at, f.invalidated_at]
                    AS stamps""", Map.of("t", tenant)).forEachRemaining(row -> {
                        List<Long> micros = new ArrayList<>();
                        ((List<?>) row.get("stamps")).forEach(s -> micros.add(Instants.micros(s)));
                        out.put((String) row.get("id"), micros);
                    });
        return out;
    }
}
