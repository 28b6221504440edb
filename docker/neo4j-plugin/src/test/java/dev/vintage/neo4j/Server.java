package dev.vintage.neo4j;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;

/**
 * The plugin as a server runs it, for every test class of the run: its classes packed into a
 * jar, the jar put in a plugins/ directory, and a Neo4j of the pinned version started with that
 * directory (nothing registered by hand). One server for the whole run, since starting one is
 * most of the build's test time; each test class writes its own tenants. Its files live under
 * target/ ({@code vintage.scratch}), emptied first; it stops when the test JVM exits, as
 * Neo4j's embedded servers are stopped, and its files go then.
 */
final class Server {
    private static GraphDatabaseService db;

    private Server() {
    }

    static synchronized GraphDatabaseService db() throws IOException {
        if (db == null) {
            Path dir = Path.of(System.getProperty("vintage.scratch"));
            delete(dir);
            Path plugins = Files.createDirectories(dir.resolve("plugins"));
            jar(Path.of(System.getProperty("vintage.classes")), plugins.resolve("vintage.jar"));
            DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(
                    dir.resolve("home"))
                    .setConfig(GraphDatabaseSettings.plugin_dir, plugins)
                    .setConfig(BoltConnector.enabled, false)
                    .setConfig(GraphDatabaseSettings.pagecache_memory, 16L * 1024 * 1024)
                    // a test's few megabytes: not 256 MB of transaction log per database
                    .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                    .build();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                dbms.shutdown();
                try {
                    delete(dir);
                } catch (IOException e) {
                    System.err.println("vintage: left the test server's files: " + e);
                }
            }, "neo4j-stop"));
            db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        }
        return db;
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

    /** A previous run's files, if any. */
    private static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
