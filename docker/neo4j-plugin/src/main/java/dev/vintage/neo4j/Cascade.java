package dev.vintage.neo4j;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.ResourceIterator;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
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
 * <p>A port of the Python reference (graph/writes/cascade.py {@code plan}, graph/neo4j/downstream.py
 * for the reach), with the same rule, the same tie-breaks and the same order, so that a cascade
 * reads the same with or without it (tests/test_cascade_equivalence.py runs both). A stock
 * Neo4j without it runs the pure-Cypher path. {@code vintage.cascade} only decides;
 * {@code vintage.cascade_close} also writes each close ({@link Closes}) on the node its walk
 * ({@link Walk}) holds, instead of a second statement that sought 110,000 facts again by id (1.6 s
 * of a 7.4 s cascade, bench/RESULTS.md).
 *
 * <p>Walk and Closes read and write through the kernel's internal API (cursors, token ids), which
 * is not a public contract: it is compiled against the one Neo4j version the build pins
 * (docker/pom.xml), and tests/test_cascade_equivalence.py holds it to the
 * reference whenever that version moves.
 *
 * <p>Instants are integer microseconds since the epoch, as the Cypher path returns them; null
 * is "open".
 */
public class Cascade {
    private static final Label FACT = Label.label("Fact");

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

        void add(Walk.Reached f, String fid, long d, List<String> p, Long e) {
            id.add(fid);
            subject.add((String) f.report()[Walk.SUBJECT]);
            predicate.add((String) f.report()[Walk.PREDICATE]);
            value.add(f.report()[Walk.VALUE]);
            unit.add((String) f.report()[Walk.UNIT]);
            sealed.add((Boolean) f.report()[Walk.SEALED]);
            depth.add(d);
            path.add(p);
            end.add(e);
        }
    }

    // graph/neo4j/tx.py close_knowledge says the same when its count comes back short;
    // graph/neo4j/procedures.py recognises the procedure's refusal by it.
    static final String CLOSED_FIRST = "another writer closed one of these facts first";

    // graph/writes/cascade.py CYCLE, which graph/neo4j/procedures.py recognises the refusal by.
    static final String CYCLE = "the derivation graph downstream of the change has a cycle";

    @Procedure(name = "vintage.cascade", mode = Mode.READ)
    @Description("The decided cascade of a change (graph/writes/cascade.py plan): per reached fact still "
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
        KernelTransaction ktx = ((InternalTransaction) tx).kernelTransaction();
        try (Walk walk = new Walk(ktx, guard, tenant, at, endKey);
             Closes closes = close ? new Closes(ktx, endKey, at) : null) {
            walk.reach(startNodes(tenant, starts), new HashSet<>(starts));
            return decided(walk, starts, changed, closes);
        }
    }

    private Stream<Chunk> decided(Walk walk, List<String> starts, Map<String, Object> changed,
                                  Closes closes) {
        Map<String, Order.Justified> justified = new HashMap<>(walk.reached.size() * 2);
        walk.reached.forEach((fid, r) -> justified.put(fid, r.justified()));
        Map<String, List<String>> paths = Order.paths(justified, starts);
        Map<String, Long> ends = new HashMap<>(walk.reached.size() * 2);
        for (Map.Entry<String, Object> e : changed.entrySet()) {
            ends.put(e.getKey(), e.getValue() == null ? null : ((Number) e.getValue()).longValue());
        }
        List<Chunk> chunks = new ArrayList<>();
        Chunk chunk = new Chunk();
        for (String fid : Order.topological(justified, CYCLE)) {
            Long already = walk.stored.get(fid);
            if (already != null) {
                ends.put(fid, already);
                continue;
            }
            Walk.Reached fact = walk.reached.get(fid);
            Long end = Order.justifiedUntil(fact.justified().inputs(), ends, walk.stored);
            ends.put(fid, end);
            List<String> path = paths.getOrDefault(fid, List.of(fid));
            if (chunk.id.size() == CHUNK) {
                chunks.add(chunk);
                chunk = new Chunk();
            }
            if (closes != null && end != null) {
                closes.close(fact.node(), end);
            }
            chunk.add(fact, fid, Math.max(path.size() - 1, 1), path, end);
        }
        if (!chunk.id.isEmpty()) {
            chunks.add(chunk);
        }
        return chunks.stream();
    }

    /** The changed facts' nodes (the walk's first frontier), by the (tenant, id) index. The
     * kernel's cursors address a node by its internal id, valid within this transaction: the
     * one use of the deprecated {@code getId()}, on purpose. */
    @SuppressWarnings("removal")
    private List<Long> startNodes(String tenant, List<String> starts) {
        List<Long> nodes = new ArrayList<>();
        for (String id : starts) {
            try (ResourceIterator<Node> found = tx.findNodes(FACT, "tenant", tenant, "id", id)) {
                found.forEachRemaining(n -> nodes.add(n.getId()));
            }
        }
        return nodes;
    }
}
