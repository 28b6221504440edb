package dev.vintage.neo4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.internal.kernel.api.IndexReadSession;
import org.neo4j.internal.schema.IndexDescriptor;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;

/**
 * The plugin as a server runs it ({@link Server}: loaded from a plugins/ directory, nothing
 * registered by hand). What a deployment relies on: every procedure is there, the handshake
 * reports the versions the Python side checks, and the full-text pass's reach into Neo4j's
 * internals still finds every part and scores each hit as {@code db.index.fulltext.queryNodes} does (so a
 * version bump that moves them fails this build, not a user's search).
 */
class PluginTest {
    private static final Set<String> PROCEDURES = Set.of("vintage.version", "vintage.cascade",
            "vintage.cascade_close", "vintage.search_write", "vintage.rank_columns",
            "vintage.text_passes", "vintage.rank", "vintage.reread");

    private static GraphDatabaseService db;

    @BeforeAll
    static void start() throws IOException {
        db = Server.db();
    }

    @Test
    void everyProcedureIsLoadedFromThePluginsDirectory() {
        Set<String> found = new TreeSet<>();
        db.executeTransactionally("SHOW PROCEDURES YIELD name WHERE name STARTS WITH 'vintage.' "
                + "RETURN name", Map.of(), r -> {
                    r.forEachRemaining(row -> found.add((String) row.get("name")));
                    return null;
                });
        assertEquals(new TreeSet<>(PROCEDURES), found);
    }

    @Test
    void theHandshakeReportsThisPluginAndTheNeo4jThatRunsIt() {
        Map<String, Object> row = db.executeTransactionally("""
                CALL dbms.components() YIELD name, versions WHERE name = 'Neo4j Kernel'
                CALL vintage.version() YIELD plugin, neo4j
                RETURN versions[0] AS server, plugin, neo4j""", Map.of(),
                r -> r.next());
        assertEquals(System.getProperty("vintage.version"), row.get("plugin"));
        assertEquals(row.get("server"), row.get("neo4j"));
    }

    @Test
    void theTextPassFindsEveryPartOfThePinnedNeo4jsReader() {
        assertNull(TextPass.unavailable(), "Neo4j's full-text reader moved: TextPass.java");
    }

    @Test
    void theTextPassScoresEachHitAsQueryNodesDoes() throws Exception {
        db.executeTransactionally("CREATE FULLTEXT INDEX probe_text IF NOT EXISTS "
                + "FOR (n:Probe) ON EACH [n.text]");
        db.executeTransactionally("CALL db.awaitIndexes(60)");
        db.executeTransactionally("""
                UNWIND range(1, 300) AS i
                CREATE (:Probe {text: 'refund kettle ' + (CASE WHEN i % 3 = 0 THEN 'broken '
                    ELSE '' END) + 'order ' + toString(i % 17)})""");
        String query = "kettle broken order";
        Map<Long, Double> cypher = new HashMap<>();
        db.executeTransactionally("CALL db.index.fulltext.queryNodes('probe_text', $q) "
                + "YIELD node, score RETURN id(node) AS id, score", Map.of("q", query), r -> {
                    r.forEachRemaining(row -> cypher.put((Long) row.get("id"),
                            (Double) row.get("score")));
                    return null;
                });
        Map<Long, Double> direct = new HashMap<>();
        try (Transaction tx = db.beginTx()) {
            KernelTransaction k = ((InternalTransaction) tx).kernelTransaction();
            IndexDescriptor index = k.schemaRead().indexGetForName("probe_text");
            IndexReadSession session = k.dataRead().indexReadSession(index);
            boolean served = TextPass.hits(k, index, session, query, () -> { },
                    (node, score) -> direct.put(node, (double) score));
            assertTrue(served, "the pass declined a transaction without state of its own");
        }
        assertEquals(300, cypher.size());
        assertEquals(cypher, direct);
    }

    // -- the cascade's decisions: the walk over live edges, within one tenant, in order ----

    private static final String GRAPH = """
            CREATE (a:Fact {tenant: $t, id: 'a', subject: 's', predicate: 'in', value: 1.0})
            CREATE (b:Fact {tenant: $t, id: 'b', subject: 's', predicate: 'mid', value: 2.0})
            CREATE (c:Fact {tenant: $t, id: 'c', subject: 's', predicate: 'top', value: 3.0})
            CREATE (e:Fact {tenant: $t, id: 'e', subject: 's', predicate: 'gone', value: 4.0})
            CREATE (x:Fact {tenant: $other, id: 'x', subject: 's', predicate: 'theirs'})
            CREATE (d1:Derivation {tenant: $t, id: 'd1'}), (d2:Derivation {tenant: $t, id: 'd2'})
            CREATE (d3:Derivation {tenant: $t, id: 'd3'}), (du:Derivation {tenant: $other, id: 'du'})
            CREATE (d1)-[:USED {recorded_at: $rec}]->(a), (d1)-[:GENERATED {recorded_at: $rec}]->(b)
            CREATE (d2)-[:USED {recorded_at: $rec}]->(b), (d2)-[:GENERATED {recorded_at: $rec}]->(c)
            CREATE (d3)-[:USED {recorded_at: $rec, invalidated_at: $dead}]->(a)
            CREATE (d3)-[:GENERATED {recorded_at: $rec}]->(e)
            CREATE (du)-[:USED {recorded_at: $rec}]->(a), (du)-[:GENERATED {recorded_at: $rec}]->(x)
            """;

    private static Map<String, Object> graph(String tenant) {
        Map<String, Object> params = new HashMap<>();
        params.put("t", tenant);
        params.put("other", tenant + "-other");
        params.put("rec", Instants.utc(micros("2020-01-01T00:00:00Z")));
        params.put("dead", Instants.utc(micros("2020-06-01T00:00:00Z")));
        db.executeTransactionally(GRAPH, params);
        return params;
    }

    private static long micros(String instant) {
        return java.time.Instant.parse(instant).toEpochMilli() * 1000L;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, List<Object>> cascade(String tenant, Map<String, Object> changed) {
        Map<String, List<Object>> columns = new HashMap<>();
        db.executeTransactionally("""
                CALL vintage.cascade($t, $changed, 'knowledge', $at)
                YIELD id, depth, path, end RETURN id, depth, path, end""",
                Map.of("t", tenant, "changed", changed, "at", micros("2022-01-01T00:00:00Z")),
                r -> {
                    r.forEachRemaining(row -> row.forEach((k, v) -> columns
                            .computeIfAbsent(k, x -> new ArrayList<>()).addAll((List<Object>) v)));
                    return null;
                });
        return columns;
    }

    @Test
    void aCascadeReachesEveryLiveDerivedFactOfTheTenantInTopologicalOrder() {
        graph("t1");
        long end = micros("2021-01-01T00:00:00Z");
        Map<String, List<Object>> decided = cascade("t1", Map.of("a", end));
        // e hangs on an edge invalidated before the cascade's instant, x on another tenant's
        // derivation: neither is reached.
        assertEquals(List.of("b", "c"), decided.get("id"));
        assertEquals(List.of(1L, 2L), decided.get("depth"));
        assertEquals(List.of(List.of("a", "b"), List.of("a", "b", "c")), decided.get("path"));
        assertEquals(List.of(end, end), decided.get("end"), "ends where its input ends");
    }

    @Test
    void aChangeWithNothingDownstreamDecidesNothing() {
        graph("t2");
        assertEquals(Map.of(), cascade("t2", Map.of("c", micros("2021-01-01T00:00:00Z"))));
    }

    @Test
    void aCycleDownstreamIsRefusedWithTheMessageThePythonSideRecognises() {
        // b and c each justify the other below the change: no order can decide them.
        Map<String, Object> params = graph("t3");
        db.executeTransactionally("""
                MATCH (c:Fact {tenant: $t, id: 'c'}), (b:Fact {tenant: $t, id: 'b'})
                CREATE (back:Derivation {tenant: $t, id: 'back'})
                CREATE (back)-[:USED {recorded_at: $rec}]->(c)
                CREATE (back)-[:GENERATED {recorded_at: $rec}]->(b)""", params);
        RuntimeException refused = assertThrows(RuntimeException.class,
                () -> cascade("t3", Map.of("a", micros("2021-01-01T00:00:00Z"))));
        assertTrue(String.valueOf(refused.getMessage()).contains(Cascade.CYCLE)
                || String.valueOf(refused.getCause()).contains(Cascade.CYCLE), refused::toString);
    }
}
