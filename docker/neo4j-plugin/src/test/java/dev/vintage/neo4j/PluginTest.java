package dev.vintage.neo4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.internal.kernel.api.IndexReadSession;
import org.neo4j.internal.schema.IndexDescriptor;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;

/**
 * The plugin as a server runs it: its classes packed into a jar, the jar put in a plugins/
 * directory, and a Neo4j of the pinned version started with that directory (nothing registered
 * by hand). What a deployment relies on: every procedure is there, the handshake reports the
 * versions the Python side checks, and the full-text pass's reach into Neo4j's internals still
 * finds every part and scores each hit as {@code db.index.fulltext.queryNodes} does (so a
 * version bump that moves them fails this build, not a user's search).
 */
class PluginTest {
    private static final Set<String> PROCEDURES = Set.of("vintage.version", "vintage.cascade",
            "vintage.cascade_close", "vintage.search_write", "vintage.rank_columns",
            "vintage.text_passes", "vintage.rank", "vintage.reread");

    @TempDir
    static Path dir;

    private static DatabaseManagementService dbms;
    private static GraphDatabaseService db;

    @BeforeAll
    static void start() throws IOException {
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        jar(Path.of(System.getProperty("vintage.classes")), plugins.resolve("vintage.jar"));
        dbms = new DatabaseManagementServiceBuilder(dir.resolve("home"))
                .setConfig(GraphDatabaseSettings.plugin_dir, plugins)
                .setConfig(BoltConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.pagecache_memory, 16L * 1024 * 1024)
                .build();
        db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
    }

    @AfterAll
    static void stop() {
        if (dbms != null) {
            dbms.shutdown();
        }
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

    /** A plugin jar of the compiled classes, as `mvn package` makes it. */
    private static void jar(Path classes, Path target) throws IOException {
        try (OutputStream out = Files.newOutputStream(target);
             JarOutputStream jar = new JarOutputStream(out);
             Stream<Path> files = Files.walk(classes)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                jar.putNextEntry(new JarEntry(classes.relativize(file).toString()
                        .replace('\\', '/')));
                Files.copy(file, jar);
                jar.closeEntry();
            }
        }
    }
}
