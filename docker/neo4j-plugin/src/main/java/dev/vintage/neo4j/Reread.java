package dev.vintage.neo4j;

import java.lang.reflect.Array;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.NotFoundException;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.ResourceIterator;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.values.storable.DateTimeValue;

/**
 * A search's re-read of its candidates (graph/neo4j/cypher_reads.py
 * {@code read_cited_with_subjects}: the same row) with the as-of predicate decided on the
 * tenant's {@link Columns}, which are never used across a write to it, and each fact's node
 * read once, not a property at a time. No row when the columns are not usable or lack one of
 * the ids (a fact with no index entry yet): then the caller reads in Cypher.
 */
public class Reread {
    private static final Label SOURCE = Label.label("Source");
    private static final Label SUBJECT = Label.label("Subject");
    private static final RelationshipType SUPPORTED_BY = RelationshipType.withName("SUPPORTED_BY");

    @Context
    public Transaction tx;

    @Context
    public GraphDatabaseService db;

    public static class Read {
        public List<Map<String, Object>> rows;
        public List<Map<String, Object>> sources;
        public List<Map<String, Object>> subjects;
    }

    private record Found(Node node, Map<String, Object> props) {}

    @Procedure(name = "vintage.reread", mode = Mode.READ)
    @Description("The legal facts among the request's ids, with their cited sources and "
            + "subjects, as read_cited_with_subjects returns them; no row without usable columns.")
    @SuppressWarnings("unchecked")
    public Stream<Read> reread(@Name("request") Map<String, Object> request) {
        String tenant = (String) request.get("tenant");
        Columns columns = RankCache.acquire(tenant, (String) request.get("token"), db);
        if (columns == null) {
            return Stream.empty();
        }
        try {
            Legal legal = new Legal(request);
            List<String> keys = new ArrayList<>((List<String>) request.get("fields"));
            keys.addAll((List<String>) request.get("instants"));
            keys.addAll((List<String>) request.get("instant_lists"));
            String[] read = keys.toArray(new String[0]);
            List<Found> facts = new ArrayList<>();
            for (String id : new TreeSet<>((List<String>) request.get("ids"))) {
                Columns.Entry e = columns.entry(id);
                if (e == null) {
                    return Stream.empty(); // not in the columns: Cypher decides
                }
                if (legal.reason(e) == null) {
                    Found found = current(e, tenant, read);
                    if (found == null) {
                        return Stream.empty(); // changed since the columns were read
                    }
                    facts.add(found);
                }
            }
            facts.sort(FACT_ORDER);
            return Stream.of(read(tenant, facts, request));
        } finally {
            columns.release();
        }
    }

    /** The entry's fact as this transaction sees it, or null when that is no longer the
     * fact the columns describe: a write that began after they were acquired (an erasure, a
     * purge) evicts them but cannot stop this call, and its node must not be shown. */
    private Found current(Columns.Entry e, String tenant, String[] read) {
        Node node;
        Map<String, Object> props;
        try {
            node = ((InternalTransaction) tx).newNodeEntity(e.node);
            props = node.getProperties(read);
        } catch (NotFoundException gone) {
            return null;
        }
        boolean same = e.id.equals(props.get("id")) && tenant.equals(props.get("tenant"))
                && props.get("erased_at") == null;
        return same ? new Found(node, props) : null;
    }

    private static final Comparator<Found> FACT_ORDER = Comparator
            .comparing((Found f) -> (String) f.props.get("subject"))
            .thenComparing(f -> (String) f.props.get("predicate"))
            .thenComparing(f -> (ZonedDateTime) f.props.get("valid_from"))
            .thenComparingLong(f -> (Long) f.props.get("revision"))
            .thenComparing(f -> (String) f.props.get("id"));

    @SuppressWarnings("unchecked")
    private Read read(String tenant, List<Found> facts, Map<String, Object> request) {
        long known = (Long) request.get("known");
        long system = (Long) request.get("system");
        List<String> fields = (List<String>) request.get("fields");
        List<String> instants = (List<String>) request.get("instants");
        List<String> instantLists = (List<String>) request.get("instant_lists");
        Read out = new Read();
        out.rows = new ArrayList<>(facts.size());
        Map<String, Map<String, Object>> sources = new LinkedHashMap<>();
        TreeSet<String> names = new TreeSet<>();
        Map<String, Map<String, Object>> seen = new HashMap<>(); // each source node's map, once
        for (Found f : facts) {
            // Only the properties the node has: the row is a fifth shorter than Cypher's map,
            // which names every key, and the client decodes it that much faster.
            Map<String, Object> fact = new HashMap<>();
            for (String k : fields) {
                Object v = f.props.get(k);
                if (v != null) {
                    fact.put(k, plain(v));
                }
            }
            for (String k : instants) {
                Object v = f.props.get(k);
                if (v != null) {
                    fact.put(k, text(v));
                }
            }
            for (String k : instantLists) {
                List<Object> texts = new ArrayList<>();
                Object list = f.props.get(k);
                for (int i = 0; list != null && i < Array.getLength(list); i++) {
                    texts.add(text(Array.get(list, i)));
                }
                fact.put(k, texts);
            }
            List<Object> ids = new ArrayList<>();
            for (Map<String, Object> source : cited(f.node, known, system, seen)) {
                ids.add(source.get("id"));
                sources.putIfAbsent((String) source.get("id"), source);
            }
            out.rows.add(Map.of("f", fact, "sources", ids));
            names.add((String) f.props.get("subject"));
        }
        out.sources = new ArrayList<>(sources.size());
        for (Map<String, Object> source : sources.values()) {
            Map<String, Object> sent = new HashMap<>(source);
            sent.remove(AT);
            out.sources.add(sent);
        }
        out.subjects = subjects(tenant, names);
        return out;
    }

    /** The maps of the sources its support edges public by the cutoff and holding at the
     * system instant lead to, ordered by the source's availability, then id. */
    private static List<Map<String, Object>> cited(Node fact, long known, long system,
                                                   Map<String, Map<String, Object>> seen) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Relationship r : fact.getRelationships(Direction.OUTGOING, SUPPORTED_BY)) {
            Map<String, Object> p = r.getProperties("available_at", "recorded_at",
                    "invalidated_at", "gaps_from", "gaps_to");
            Long available = Instants.micros(p.get("available_at"));
            if (available != null && available <= known && Instants.holds(p.get("recorded_at"),
                    p.get("invalidated_at"), p.get("gaps_from"), p.get("gaps_to"), system)) {
                Node s = r.getEndNode();
                Map<String, Object> source = seen.get(s.getElementId());
                if (source == null && s.hasLabel(SOURCE)) {
                    source = sourceMap(s);
                    seen.put(s.getElementId(), source);
                }
                if (source != null) {
                    out.add(source);
                }
            }
        }
        out.sort(Comparator.comparing((Map<String, Object> s) -> (ZonedDateTime) s.get(AT))
                .thenComparing(s -> (String) s.get("id")));
        return out;
    }

    // A source map's own availability, for ordering; not part of the row (dropped by read()).
    private static final String AT = " available_at";

    private static Map<String, Object> sourceMap(Node s) {
        Map<String, Object> out = new HashMap<>();
        s.getAllProperties().forEach((k, v) -> out.put(k, plain(v)));
        out.put(AT, out.get("available_at"));
        out.put("available_at", text(out.get("available_at")));
        out.put("recorded_at", text(out.get("recorded_at")));
        return out;
    }

    private List<Map<String, Object>> subjects(String tenant, SortedSet<String> names) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (String id : names) {
            try (ResourceIterator<Node> found = tx.findNodes(SUBJECT, "tenant", tenant, "id", id)) {
                while (found.hasNext()) {
                    Node s = found.next();
                    Map<String, Object> subject = new HashMap<>();
                    subject.put("id", s.getProperty("id", null));
                    subject.put("kind", s.getProperty("kind", null));
                    subject.put("name", s.getProperty("name", null));
                    Object identifiers = plain(s.getProperty("identifiers", null));
                    subject.put("identifiers", identifiers == null ? List.of() : identifiers);
                    out.add(subject);
                }
            }
        }
        return out;
    }

    /** An instant as Cypher's toString renders it; null stays null. */
    private static String text(Object instant) {
        return instant == null ? null : DateTimeValue.datetime((ZonedDateTime) instant).prettyPrint();
    }

    /** A property as a procedure may return it: arrays as lists. */
    private static Object plain(Object value) {
        if (value == null || !value.getClass().isArray()) {
            return value;
        }
        int n = Array.getLength(value);
        List<Object> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(Array.get(value, i));
        }
        return out;
    }
}
