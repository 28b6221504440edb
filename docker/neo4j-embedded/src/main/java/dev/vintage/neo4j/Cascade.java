package dev.vintage.neo4j;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.ResourceIterator;
import org.neo4j.graphdb.Transaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;

/**
 * The optional cascade accelerator: a change's downstream subgraph found and decided inside the
 * server, returned as the decided facts only.
 *
 * <p>A port of the Python reference (graph/cascade.py {@code plan}, graph/neo4j/downstream.py
 * for the reach), with the same rule, the same tie-breaks and the same order, so that a cascade
 * reads the same with or without it (tests/test_cascade_equivalence.py runs both). A stock
 * Neo4j without it runs the pure-Cypher path. {@code vintage.cascade} only decides;
 * {@code vintage.cascade_close} also writes each close from the node it already holds, as
 * graph/neo4j/cypher.py {@code close_knowledge} and cypher_lineage.py {@code invalidate_facts}
 * would: a second statement that seeks 110,000 facts again by id cost 1.6 s of a 7.4 s cascade
 * (bench/RESULTS.md).
 *
 * <p>Instants are integer microseconds since the epoch, as the Cypher path returns them; null
 * is "open".
 */
public class Cascade {
    private static final Label FACT = Label.label("Fact");
    private static final Label DERIVATION = Label.label("Derivation");
    private static final RelationshipType USED = RelationshipType.withName("USED");
    private static final RelationshipType GENERATED = RelationshipType.withName("GENERATED");
    private static final int MAX_DEPTH = 128; // graph/reach.py MAX_DEPTH

    @Context
    public Transaction tx;

    @Context
    public TerminationGuard guard; // a timed-out or killed transaction stops between levels

    // Facts per record. One record per fact costs the Python driver more than the decision;
    // records of 5,000 left the connection slow for the queries after it (a 0.6 s read took
    // 30 s on it, measured, a fresh connection did not), so: a few hundred.
    private static final int CHUNK = 256;

    /** Decided facts in topological order, a chunk of them per record, as columns. */
    public static class Chunk {
        public List<String> id = new ArrayList<>();
        public List<String> subject = new ArrayList<>();
        public List<String> predicate = new ArrayList<>();
        public List<Object> value = new ArrayList<>();
        public List<String> unit = new ArrayList<>();
        public List<Boolean> sealed = new ArrayList<>();
        public List<Long> depth = new ArrayList<>();
        public List<List<String>> path = new ArrayList<>();
        public List<Long> end = new ArrayList<>();

        void add(Reached f, String fid, long d, List<String> p, Long e) {
            id.add(fid);
            subject.add((String) f.props().get("subject"));
            predicate.add((String) f.props().get("predicate"));
            value.add(f.props().get("value"));
            unit.add((String) f.props().get("unit"));
            sealed.add((Boolean) f.props().get("ciphertext"));
            depth.add(d);
            path.add(p);
            end.add(e);
        }
    }

    /** A reached fact: its node, what a report names of it, and its live justifications. */
    private record Reached(Node node, Map<String, Object> props, Order.Justified justified) {}

    // graph/neo4j/tx.py close_knowledge says the same when its count comes back short;
    // graph/neo4j/procedures.py recognises the procedure's refusal by it.
    static final String CLOSED_FIRST = "another writer closed one of these facts first";

    // graph/cascade.py CYCLE, which graph/neo4j/procedures.py recognises the refusal by.
    static final String CYCLE = "the derivation graph downstream of the change has a cycle";

    @Procedure(name = "vintage.cascade", mode = Mode.READ)
    @Description("The decided cascade of a change (graph/cascade.py plan): per reached fact still "
            + "open on the axis, in topological order, its report fields, depth, path and end.")
    public Stream<Chunk> cascade(@Name("tenant") String tenant,
                               @Name("changed") Map<String, Object> changed,
                               @Name("axis") String axis, @Name("at") long at) {
        return decide(tenant, changed, axis, at, false);
    }

    @Procedure(name = "vintage.cascade_close", mode = Mode.WRITE)
    @Description("vintage.cascade, and each fact it ends closed at `at` (knowledge: superseded_at "
            + "is its end, superseded_recorded_at is `at`; system: invalidated_at is `at`).")
    public Stream<Chunk> cascadeClose(@Name("tenant") String tenant,
                                      @Name("changed") Map<String, Object> changed,
                                      @Name("axis") String axis, @Name("at") long at) {
        return decide(tenant, changed, axis, at, true);
    }

    private Stream<Chunk> decide(String tenant, Map<String, Object> changed, String axis, long at,
                                 boolean close) {
        String endKey = switch (axis) {
            case "knowledge" -> "superseded_at";
            case "system" -> "invalidated_at";
            default -> throw new IllegalArgumentException("axis must be knowledge or system");
        };
        List<String> starts = new ArrayList<>(new TreeSet<>(changed.keySet()));
        Walk walk = new Walk(tenant, at, endKey);
        walk.reach(starts);
        Map<String, Order.Justified> justified = new HashMap<>(walk.reached.size() * 2);
        walk.reached.forEach((fid, r) -> justified.put(fid, r.justified()));
        Map<String, List<String>> paths = Order.paths(justified, starts);
        Map<String, Long> ends = new HashMap<>(walk.reached.size() * 2);
        for (Map.Entry<String, Object> e : changed.entrySet()) {
            ends.put(e.getKey(), e.getValue() == null ? null : ((Number) e.getValue()).longValue());
        }
        List<Chunk> chunks = new ArrayList<>();
        Chunk chunk = new Chunk();
        Map<Long, ZonedDateTime> instants = new HashMap<>(); // a cascade ends facts at a few
        ZonedDateTime now = utc(at);
        for (String fid : Order.topological(justified, CYCLE)) {
            Long already = walk.stored.get(fid);
            if (already != null) {
                ends.put(fid, already);
                continue;
            }
            Reached fact = walk.reached.get(fid);
            Long end = Order.justifiedUntil(fact.justified().inputs(), ends, walk.stored);
            ends.put(fid, end);
            List<String> path = paths.getOrDefault(fid, List.of(fid));
            if (chunk.id.size() == CHUNK) {
                chunks.add(chunk);
                chunk = new Chunk();
            }
            if (close && end != null) {
                close(fact.node(), endKey, instants.computeIfAbsent(end, Cascade::utc), now);
            }
            chunk.add(fact, fid, Math.max(path.size() - 1, 1), path, end);
        }
        if (!chunk.id.isEmpty()) {
            chunks.add(chunk);
        }
        return chunks.stream();
    }

    /** One close, guarded as the Cypher path's {@code WHERE ... IS NULL}, but under the node's
     * write lock: a writer that closed it first has committed by the time the lock is ours. */
    private void close(Node f, String endKey, ZonedDateTime end, ZonedDateTime at) {
        tx.acquireWriteLock(f);
        if (f.getProperty(endKey, null) != null) {
            if (endKey.equals("superseded_at")) { // the Cypher path counts, and refuses the same
                throw new IllegalStateException(CLOSED_FIRST);
            }
            return; // invalidated already: the Cypher path skips it too
        }
        if (endKey.equals("superseded_at")) {
            f.setProperty("superseded_at", end);
            f.setProperty("superseded_recorded_at", at);
        } else {
            f.setProperty("invalidated_at", at);
        }
    }

    /** An instant as the Cypher path stores one (a UTC offset, not a zone name). */
    private static ZonedDateTime utc(long micros) {
        Instant at = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                Math.floorMod(micros, 1_000_000L) * 1_000L);
        return ZonedDateTime.ofInstant(at, ZoneOffset.UTC);
    }

    /** The downstream walk (graph/neo4j/downstream.py): each reached fact once, with its live
     * justifications and what a report names of it, read in one pass of its property chain. */
    private final class Walk {
        final String tenant;
        final long at;
        final String endKey;
        final Map<String, Reached> reached = new HashMap<>();
        final Map<String, Long> stored = new HashMap<>(); // axis end of every fact involved
        private final Map<Node, String> inputIds = new HashMap<>(); // entities hash by their ids

        Walk(String tenant, long at, String endKey) {
            this.tenant = tenant;
            this.at = at;
            this.endKey = endKey;
        }

        void reach(List<String> starts) {
            List<Node> frontier = new ArrayList<>();
            for (String id : starts) {
                try (ResourceIterator<Node> found = tx.findNodes(FACT, "tenant", tenant, "id", id)) {
                    found.forEachRemaining(frontier::add);
                }
            }
            java.util.Set<String> seen = new java.util.HashSet<>(starts);
            java.util.Set<Node> visited = new java.util.HashSet<>();
            for (int level = 0; level < MAX_DEPTH && !frontier.isEmpty(); level++) {
                guard.check();
                List<Node> next = new ArrayList<>();
                for (Node x : frontier) {
                    for (Relationship u : x.getRelationships(Direction.INCOMING, USED)) {
                        Node d = u.getStartNode();
                        if (!d.hasLabel(DERIVATION) || !holds(u, at)
                                || !tenant.equals(d.getProperty("tenant", null))) {
                            continue;
                        }
                        for (Relationship g : d.getRelationships(Direction.OUTGOING, GENERATED)) {
                            Node f = g.getEndNode();
                            if (!f.hasLabel(FACT) || !holds(g, at) || !visited.add(f)) {
                                continue;
                            }
                            // One read of the property chain, not one walk of it per property.
                            Map<String, Object> p = f.getProperties("tenant", "id", endKey,
                                    "subject", "predicate", "value", "unit", "ciphertext");
                            String fid = (String) p.get("id");
                            // Held until the cascade is decided: whether it is sealed, not the
                            // ciphertext itself (a sealed memory's whole content).
                            p.put("ciphertext", p.get("ciphertext") != null);
                            if (tenant.equals(p.get("tenant")) && seen.add(fid)) {
                                next.add(f);
                                stored.put(fid, micros(p.get(endKey)));
                                reached.put(fid, new Reached(f, p, justify(f)));
                            }
                        }
                    }
                }
                frontier = next;
            }
        }

        private Order.Justified justify(Node f) {
            TreeMap<String, List<String>> byDerivation = new TreeMap<>();
            for (Relationship h : f.getRelationships(Direction.INCOMING, GENERATED)) {
                Node j = h.getStartNode();
                if (!j.hasLabel(DERIVATION) || !holds(h, at)) {
                    continue;
                }
                Map<String, Object> jp = j.getProperties("tenant", "id");
                if (!tenant.equals(jp.get("tenant"))) {
                    continue;
                }
                TreeSet<String> inputs = new TreeSet<>();
                for (Relationship v : j.getRelationships(Direction.OUTGOING, USED)) {
                    Node x = v.getEndNode();
                    if (x.hasLabel(FACT) && holds(v, at)) {
                        inputs.add(input(x));
                    }
                }
                byDerivation.put((String) jp.get("id"), new ArrayList<>(inputs));
            }
            return new Order.Justified(new ArrayList<>(byDerivation.keySet()),
                    new ArrayList<>(byDerivation.values()));
        }

        /** An input's id; its end is kept for the decision (the restated figure: read once). */
        private String input(Node x) {
            String id = inputIds.get(x);
            if (id == null) {
                Map<String, Object> p = x.getProperties("id", endKey);
                id = (String) p.get("id");
                inputIds.put(x, id);
                stored.putIfAbsent(id, micros(p.get(endKey)));
            }
            return id;
        }
    }

    /** graph/asof.py holds_at: recorded by then, not yet invalidated, not in a gap. */
    private static boolean holds(Relationship r, long at) {
        Map<String, Object> p = r.getProperties("recorded_at", "invalidated_at", "gaps_from",
                "gaps_to");
        Long recorded = micros(p.get("recorded_at"));
        if (recorded == null || recorded > at) {
            return false;
        }
        Long invalidated = micros(p.get("invalidated_at"));
        if (invalidated != null && at >= invalidated) {
            return false;
        }
        Object from = p.get("gaps_from");
        Object to = p.get("gaps_to");
        if (!empty(from) || !empty(to)) {
            if (!(from instanceof ZonedDateTime[] starts) || !(to instanceof ZonedDateTime[] stops)
                    || starts.length != stops.length) {
                throw new IllegalStateException("gaps_from and gaps_to do not pair up");
            }
            for (int i = 0; i < starts.length; i++) {
                if (micros(starts[i]) <= at && at < micros(stops[i])) {
                    return false;
                }
            }
        }
        return true;
    }

    /** No gaps: absent, or an empty list (which Neo4j may hand back typed as any array). */
    private static boolean empty(Object list) {
        return list == null || (list.getClass().isArray() && java.lang.reflect.Array.getLength(list) == 0);
    }

    private static Long micros(Object instant) {
        if (instant == null) {
            return null;
        }
        if (instant instanceof ZonedDateTime t) {
            return t.toEpochSecond() * 1_000_000L + t.getNano() / 1_000;
        }
        // Cypher would compare such a value as null and decide otherwise: refuse, not guess.
        throw new IllegalStateException("an instant stored as " + instant.getClass().getSimpleName());
    }
}
