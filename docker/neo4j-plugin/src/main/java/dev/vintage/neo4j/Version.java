package dev.vintage.neo4j;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.stream.Stream;

import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Procedure;

/**
 * The handshake: this plugin's version and the Neo4j version it was built for. The Python side
 * ({@code vintage.graph.neo4j.procedures.handshake}) uses the plugin's procedures only when the
 * plugin is the version it expects and was built for the Neo4j it talks to; otherwise it falls
 * back to Cypher, so a mismatched jar never fails a request.
 */
public final class Version {
    static final String PLUGIN;
    static final String NEO4J;

    static {
        Properties built = new Properties();
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                throw new IllegalStateException("version.properties is missing from the jar");
            }
            built.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        PLUGIN = built.getProperty("plugin");
        NEO4J = built.getProperty("neo4j");
    }

    /** One row of {@code vintage.version()}. */
    public static final class Row {
        public final String plugin;
        public final String neo4j;

        Row(String plugin, String neo4j) {
            this.plugin = plugin;
            this.neo4j = neo4j;
        }
    }

    @Procedure(name = "vintage.version", mode = Mode.READ)
    @Description("vintage.version() :: (plugin, neo4j): the plugin's version and the Neo4j "
            + "version it was built for")
    public Stream<Row> version() {
        return Stream.of(new Row(PLUGIN, NEO4J));
    }
}
