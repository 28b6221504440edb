package dev.vintage.neo4j;

import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
 * Neo4j without it runs the pure-Cypher path. Read-only: the caller writes the closes.
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

        void add(Node f, String fid, long d, List<String> p, Long e) {
            // One read of the property chain, not one walk of it per property.
            Map<String, Object> props = f.getProperties("subject", "predicate", "value", "unit",
                    "ciphertext");
            id.add(fid);
            subject.add((String) props.get("subject"));
            predicate.add((String) props.get("predicate"));
            value.add(props.get("value"));
            unit.add((String) props.get("unit"));
            sealed.add(props.get("ciphertext") != null);
            depth.add(d);
            path.add(p);
            end.add(e);
        }
    }

    /** A reached fact: its node and, per live justification, its live input ids (sorted). */
    private record Reached(Node node, List<List<String>> justifications, List<String> derivations) {}

    @Procedure(name = "vintage.cascade", mode = Mode.READ)
    @Description("The decided cascade of a change (graph/cascade.py plan): per reached fact still "
            + "open on the axis, in topological order, its report fields, depth, path and end.")
    public Stream<Chunk> cascade(@Name("tenant") String tenant,
                               @Name("changed") Map<String, Object> changed,
                               @Name("axis") String axis, @Name("at") long at) {
        String endKey = switch (axis) {
            case "knowledge" -> "superseded_at";
            case "system" -> "invalidated_at";
            default -> throw new IllegalArgumentException("axis must be knowledge or system");
        };
        Map<String, Reached> reached = new HashMap<>();
        Map<String, Long> stored = new HashMap<>(); // axis end of every fact involved
        reach(tenant, new TreeSet<>(changed.keySet()), at, endKey, reached, stored);
        Map<String, List<String>> paths = paths(reached, new TreeSet<>(changed.keySet()));
        Map<String, Long> ends = new HashMap<>();
        for (Map.Entry<String, Object> e : changed.entrySet()) {
            ends.put(e.getKey(), e.getValue() == null ? null : ((Number) e.getValue()).longValue());
        }
        List<Chunk> chunks = new ArrayList<>();
        Chunk chunk = new Chunk();
        for (String fid : topological(reached)) {
            Long already = stored.get(fid);
            if (already != null) {
                ends.put(fid, already);
                continue;
            }
            Long end = justifiedUntil(reached.get(fid).justifications(), ends, stored);
            ends.put(fid, end);
            List<String> path = paths.getOrDefault(fid, List.of(fid));
            if (chunk.id.size() == CHUNK) {
                chunks.add(chunk);
                chunk = new Chunk();
            }
            chunk.add(reached.get(fid).node(), fid, Math.max(path.size() - 1, 1), path, end);
        }
        if (!chunk.id.isEmpty()) {
            chunks.add(chunk);
        }
        return chunks.stream();
    }

    private void reach(String tenant, TreeSet<String> starts, long at, String endKey,
                       Map<String, Reached> reached, Map<String, Long> stored) {
        List<Node> frontier = new ArrayList<>();
        for (String id : starts) {
            try (ResourceIterator<Node> found = tx.findNodes(FACT, "tenant", tenant, "id", id)) {
                found.forEachRemaining(frontier::add);
            }
        }
        java.util.Set<String> seen = new java.util.HashSet<>(starts);
        java.util.Set<String> visited = new java.util.HashSet<>(); // nodes, by element id
        Map<String, String> inputs = new HashMap<>(); // input fact element id -> its id
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
                        if (!f.hasLabel(FACT) || !holds(g, at)
                                || !tenant.equals(f.getProperty("tenant", null))) {
                            continue;
                        }
                        if (!visited.add(f.getElementId())) {
                            continue;
                        }
                        Map<String, Object> p = f.getProperties("id", endKey);
                        String fid = (String) p.get("id");
                        if (seen.add(fid)) {
                            next.add(f);
                            stored.put(fid, micros(p.get(endKey)));
                            reached.put(fid, justify(tenant, f, at, endKey, stored, inputs));
                        }
                    }
                }
            }
            frontier = next;
        }
    }

    private Reached justify(String tenant, Node f, long at, String endKey, Map<String, Long> stored,
                            Map<String, String> known) {
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
                if (!x.hasLabel(FACT) || !holds(v, at)) {
                    continue;
                }
                String xid = known.get(x.getElementId());
                if (xid == null) { // an input shared by many (the restated figure): read once
                    Map<String, Object> xp = x.getProperties("id", endKey);
                    xid = (String) xp.get("id");
                    known.put(x.getElementId(), xid);
                    stored.putIfAbsent(xid, micros(xp.get(endKey)));
                }
                inputs.add(xid);
            }
            byDerivation.put((String) jp.get("id"), new ArrayList<>(inputs));
        }
        return new Reached(f, new ArrayList<>(byDerivation.values()),
                new ArrayList<>(byDerivation.keySet()));
    }

    /** graph/cascade.py justified_until. */
    private static Long justifiedUntil(List<List<String>> justifications, Map<String, Long> ends,
                                       Map<String, Long> stored) {
        Long latest = null;
        for (List<String> inputs : justifications) {
            Long first = null;
            for (String i : inputs) {
                Long end = ends.containsKey(i) ? ends.get(i) : stored.get(i);
                if (end != null && (first == null || end < first)) {
                    first = end;
                }
            }
            if (first == null) {
                return null; // every input of this justification holds: so does the fact
            }
            latest = latest == null || first > latest ? first : latest;
        }
        return latest;
    }

    /** graph/cascade.py _topological: graphlib's static_order over the same graph. */
    private static List<String> topological(Map<String, Reached> reached) {
        LinkedHashMap<String, int[]> predecessors = new LinkedHashMap<>();
        Map<String, List<String>> successors = new HashMap<>();
        for (String fid : new TreeSet<>(reached.keySet())) {
            TreeSet<String> preds = new TreeSet<>();
            for (List<String> ids : reached.get(fid).justifications()) {
                for (String i : ids) {
                    if (reached.containsKey(i)) {
                        preds.add(i);
                    }
                }
            }
            predecessors.computeIfAbsent(fid, k -> new int[1])[0] += preds.size();
            for (String p : preds) {
                predecessors.computeIfAbsent(p, k -> new int[1]);
                successors.computeIfAbsent(p, k -> new ArrayList<>()).add(fid);
            }
        }
        List<String> order = new ArrayList<>();
        List<String> ready = new ArrayList<>();
        predecessors.forEach((node, n) -> {
            if (n[0] == 0) {
                ready.add(node);
            }
        });
        while (!ready.isEmpty()) {
            List<String> group = new ArrayList<>(ready);
            ready.clear();
            order.addAll(group);
            for (String node : group) {
                for (String s : successors.getOrDefault(node, List.of())) {
                    if (--predecessors.get(s)[0] == 0) {
                        ready.add(s);
                    }
                }
            }
        }
        if (order.size() != predecessors.size()) { // graphlib raises CycleError: so do we
            throw new IllegalStateException("the derivation graph downstream of the change has a cycle");
        }
        return order;
    }

    /** graph/cascade.py _paths: shortest fact-to-fact path from a change to each reached fact. */
    private static Map<String, List<String>> paths(Map<String, Reached> reached, TreeSet<String> starts) {
        Map<String, TreeSet<String>> fed = new HashMap<>();
        Map<String, TreeSet<String>> made = new HashMap<>();
        reached.forEach((fid, r) -> {
            for (int k = 0; k < r.derivations().size(); k++) {
                String did = r.derivations().get(k);
                made.computeIfAbsent(did, x -> new TreeSet<>()).add(fid);
                for (String i : r.justifications().get(k)) {
                    fed.computeIfAbsent(i, x -> new TreeSet<>()).add(did);
                }
            }
        });
        Map<String, List<String>> paths = new HashMap<>();
        ArrayDeque<String> frontier = new ArrayDeque<>(starts);
        for (String s : starts) {
            paths.put(s, List.of(s));
        }
        while (!frontier.isEmpty()) {
            ArrayDeque<String> next = new ArrayDeque<>();
            for (String fid : frontier) {
                for (String d : fed.getOrDefault(fid, new TreeSet<>())) {
                    for (String out : made.get(d)) {
                        if (!paths.containsKey(out)) {
                            List<String> path = new ArrayList<>(paths.get(fid));
                            path.add(out);
                            paths.put(out, path);
                            next.add(out);
                        }
                    }
                }
            }
            frontier = next;
        }
        return paths;
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
