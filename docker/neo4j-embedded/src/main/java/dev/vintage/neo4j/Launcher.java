package dev.vintage.neo4j;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.SettingValueParsers;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;

/**
 * Runs a Neo4j Community DBMS in-process and exposes it over Bolt on loopback only.
 *
 * <p>It adds nothing to Neo4j of its own: plugins are loaded from {@code --plugins DIR}, Neo4j's
 * {@code server.directories.plugins}, the way a Neo4j server loads APOC or Vintage's plugin.
 *
 * <p>The Python side (vintage.graph.neo4j.launcher) waits for the single {@code VINTAGE_NEO4J_READY}
 * line on stdout, so nothing else is printed there; Neo4j's own logs go to {@code <home>/logs}.
 */
public final class Launcher {

    static final String READY_PREFIX = "VINTAGE_NEO4J_READY ";
    static final String PASSWORD_ENV = "VINTAGE_NEO4J_PASSWORD";
    private static final String HOST = "127.0.0.1";
    // HOST as an address, not a name to resolve: the server listens on exactly this one.
    private static final InetAddress LOOPBACK;

    static {
        try {
            LOOPBACK = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Launcher() {}

    public static void main(String[] args) throws Exception {
        int port = 7687;
        Path home = Path.of(".vintage", "neo4j", "data");
        String pagecache = "64m";
        String txMemory = null;
        Path plugins = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (i + 1 >= args.length) {
                usage("missing value for " + arg);
            }
            switch (arg) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--home" -> home = Path.of(args[++i]);
                case "--pagecache" -> pagecache = args[++i];
                case "--tx-memory" -> txMemory = args[++i];
                case "--plugins" -> plugins = Path.of(args[++i]).toAbsolutePath().normalize();
                default -> usage("unknown argument " + arg);
            }
        }
        home = home.toAbsolutePath().normalize();
        Files.createDirectories(home);

        String password = System.getenv(PASSWORD_ENV);
        boolean auth = password != null && !password.isEmpty();

        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home);
        if (plugins != null) {
            builder.setConfig(GraphDatabaseSettings.plugin_dir, plugins);
        }
        if (txMemory != null) {
            // One transaction's memory cap (db.memory.transaction.max): past it the transaction
            // fails with a clear error and rolls back, instead of filling the heap.
            builder.setConfig(GraphDatabaseSettings.memory_transaction_max_size,
                    SettingValueParsers.BYTES.parse(txMemory));
        }
        DatabaseManagementService service = builder
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress(HOST, port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress(HOST, port))
                // Bolt otherwise idles 5s + 5s on shutdown waiting for (already closed) connections
                // and its thread pool, which makes every test-session teardown 10s slower.
                .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time,
                        Duration.ofSeconds(1))
                .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time,
                        Duration.ofSeconds(1))
                .setConfig(HttpConnector.enabled, false)
                .setConfig(HttpsConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, auth)
                .setConfig(GraphDatabaseSettings.pagecache_memory,
                        SettingValueParsers.BYTES.parse(pagecache))
                // A dev/test server: keep the transaction logs tiny so the home does not grow.
                .setConfig(GraphDatabaseSettings.keep_logical_logs, "2 files")
                .setConfig(GraphDatabaseSettings.logical_log_rotation_threshold,
                        SettingValueParsers.BYTES.parse("16m"))
                .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                // Nothing is reported home: Neo4j's usage reporting stays off.
                .setConfig(GraphDatabaseSettings.udc_enabled, false)
                .build();

        // Registered right after build() so a SIGTERM during the password/readiness phase still
        // shuts the store down cleanly instead of leaving it needing recovery.
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                service.shutdown();
            } finally {
                stopped.countDown();
            }
        }, "vintage-neo4j-shutdown"));

        try {
            GraphDatabaseService db = service.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
            if (!db.isAvailable(Duration.ofMinutes(3).toMillis())) {
                throw new IllegalStateException("default database did not become available");
            }
            if (auth) {
                setPassword(service, password);
            }
            waitForBolt(port, Duration.ofSeconds(60));
        } catch (Exception e) {
            System.err.println("vintage-neo4j: startup failed: " + e);
            e.printStackTrace(System.err);
            System.exit(1);
        }

        System.out.println(READY_PREFIX + "bolt://" + HOST + ":" + port);
        System.out.flush();

        // The main thread only parks; the shutdown hook does the real work on SIGTERM/SIGINT.
        stopped.await();
    }

    private static void setPassword(DatabaseManagementService service, String password) {
        GraphDatabaseService system = service.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
        try {
            system.executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $p CHANGE NOT REQUIRED", Map.of("p", password));
        } catch (RuntimeException e) {
            // A persistent home keeps the password from the previous run; Neo4j refuses to "change"
            // it to the same value, which is exactly the state we want.
            String message = String.valueOf(e.getMessage()) + " " + String.valueOf(e.getCause());
            if (!message.contains("cannot be the same")) {
                throw e;
            }
        }
    }

    private static void waitForBolt(int port, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        IOException last = null;
        while (System.nanoTime() < deadline) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(LOOPBACK, port), 1000);
                return;
            } catch (IOException e) {
                last = e;
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
        throw new IllegalStateException("Bolt is not accepting connections on port " + port, last);
    }

    private static void usage(String problem) {
        System.err.println("vintage-neo4j: " + problem);
        System.err.println("usage: Launcher [--port N] [--home DIR] [--pagecache 64m] [--tx-memory SIZE] "
                + "[--plugins DIR]");
        System.exit(2);
    }
}
