package dev.vintage.neo4j;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.neo4j.graphdb.GraphDatabaseService;
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
 * The optional server-side ranker: graph/neo4j/cypher_search.py {@code rank} (each leg's best
 * inside the legal set, the matched entries counted by reason, the legal set's size) over a
 * tenant's {@link Columns} instead of a Cypher pass over its nodes, with the same legs, the same
 * order and ties, and the same counts. When the tenant has no usable columns it yields no row
 * and the caller ranks in Cypher (graph/neo4j/ranker.py); a stock Neo4j has none of this.
 *
 * <p>The text legs still ask Lucene (through the kernel's index cursor): its BM25 scores are
 * the keyword leg's, and only the entries it yields count; the columns replace reading each
 * hit's node. The semantic leg is an exact cosine over every legal entry of the query's model.
 */
public class Rank {
    @Context
    public Transaction tx;

    @Context
    public GraphDatabaseService db;

    @Context
    public TerminationGuard guard;

    /** One ranking round, as cypher_search.rank returns it: pairs as two-element lists. */
    public static class Ranked {
        public List<List<Object>> exact = new ArrayList<>();
        public List<List<Object>> keyword = new ArrayList<>();
        public List<List<Object>> semantic = new ArrayList<>();
        public long legal;
        public long matched;
        public List<List<Object>> excluded = new ArrayList<>();
    }

    public static class Built {
        public long entries;
    }

    private KernelTransaction ktx() {
        return ((InternalTransaction) tx).kernelTransaction();
    }

    @Procedure(name = "vintage.search_write", mode = Mode.READ)
    @Description("The first statement of a write to the tenant: its ranking columns go now, "
            + "and none are used again until this transaction has ended.")
    public void searchWrite(@Name("tenant") String tenant) {
        RankCache.writing(tenant, ktx());
    }

    @Procedure(name = "vintage.rank_columns", mode = Mode.READ)
    @Description("Build and keep the tenant's ranking columns now (warm-up); -1: not kept, "
            + "since a write to the tenant is open or they exceed the cap.")
    public Stream<Built> columns(@Name("tenant") String tenant, @Name("token") String token)
            throws Exception {
        Built out = new Built();
        out.entries = RankCache.buildNow(tenant, token, ktx(), guard);
        return Stream.of(out);
    }

    @Procedure(name = "vintage.rank", mode = Mode.READ)
    @Description("One ranking round inside the legal set from the tenant's columns; no row "
            + "when it has none usable (then rank in Cypher).")
    public Stream<Ranked> rank(@Name("request") Map<String, Object> request) throws Exception {
        String tenant = (String) request.get("tenant");
        Columns columns = RankCache.acquire(tenant, (String) request.get("token"), db);
        if (columns == null) {
            return Stream.empty();
        }
        try {
            return Stream.of(rank(columns, request));
        } finally {
            columns.release();
        }
    }

    private record Scored(String id, double score) {}

    // Best first: the higher score, then the smaller id (ORDER BY score DESC, id).
    private static final Comparator<Scored> BEST = Comparator
            .comparingDouble(Scored::score).reversed().thenComparing(Scored::id);

    /** The best {@code k} of a stream, held in a heap whose head is the worst kept. */
    private static final class Top {
        private final int k;
        private final PriorityQueue<Scored> heap = new PriorityQueue<>(BEST.reversed());

        Top(long k) {
            this.k = (int) Math.min(k, Integer.MAX_VALUE - 1);
        }

        void offer(String id, double score) {
            Scored s = new Scored(id, score);
            if (heap.size() < k) {
                heap.add(s);
            } else if (BEST.compare(s, heap.peek()) < 0) {
                heap.poll();
                heap.add(s);
            }
        }

        List<List<Object>> best(boolean integral) {
            List<Scored> out = new ArrayList<>(heap);
            out.sort(BEST);
            List<List<Object>> rows = new ArrayList<>(out.size());
            for (Scored s : out) {
                rows.add(List.of(s.id(), integral ? (Object) (long) s.score() : s.score()));
            }
            return rows;
        }
    }

    @SuppressWarnings("unchecked")
    private Ranked rank(Columns columns, Map<String, Object> r) throws Exception {
        Legal legal = new Legal(r);
        long perLeg = (Long) r.get("per_leg");
        boolean counted = Boolean.TRUE.equals(r.get("counted"));
        Ranked out = new Ranked();
        String text = (String) r.get("text");
        if (text != null) {
            TreeMap<String, Long> excluded = new TreeMap<>();
            long[] matched = {0};
            Top keyword = new Top(perLeg);
            Columns.hits(ktx(), text, guard, (node, score) -> {
                Columns.Entry e = columns.byNode.get(node);
                if (e == null || !legal.inScope(e)) {
                    return; // not the tenant's, or beyond the scope: never counted
                }
                matched[0]++;
                String reason = legal.reason(e);
                if (reason == null) {
                    keyword.offer(e.id, score);
                } else {
                    excluded.merge(reason, 1L, Long::sum);
                }
            });
            out.keyword = keyword.best(false);
            if (counted) {
                out.matched = matched[0];
                excluded.forEach((reason, n) -> out.excluded.add(List.of(reason, n)));
            }
            String identified = (String) r.get("identified");
            if (identified != null) {
                List<String> identifiers = (List<String>) r.get("identifiers");
                Top exact = new Top(perLeg);
                Columns.hits(ktx(), identified, guard, (node, score) -> {
                    Columns.Entry e = columns.byNode.get(node);
                    if (e == null || legal.reason(e) != null) {
                        return;
                    }
                    String terms = e.terms + ' ';
                    long n = identifiers.stream()
                            .filter(i -> terms.contains(' ' + i + ' ')).count();
                    if (n > 0) {
                        exact.offer(e.id, n);
                    }
                });
                out.exact = exact.best(true);
            }
        }
        semanticAndCount(columns, r, legal, perLeg, counted, out);
        return out;
    }

    @SuppressWarnings("unchecked")
    private void semanticAndCount(Columns columns, Map<String, Object> r, Legal legal,
                                  long perLeg, boolean counted, Ranked out) {
        List<Double> asked = (List<Double>) r.get("vector");
        String model = (String) r.get("model");
        float[] query = null;
        double norm = 0;
        if (asked != null && model != null) {
            query = new float[asked.size()];
            for (int i = 0; i < query.length; i++) {
                query[i] = asked.get(i).floatValue();
                norm += (double) query[i] * query[i];
            }
            norm = Math.sqrt(norm);
        }
        Top semantic = new Top(perLeg);
        long size = 0;
        int seen = 0;
        for (Columns.Entry e : columns.within(legal.scope, legal.sharedOnly)) {
            if ((++seen & 4095) == 0) {
                guard.check();
            }
            if (legal.reason(e) != null) {
                continue;
            }
            size++;
            float[] v = e.vector;
            if (query == null || v == null || !model.equals(e.model) || e.norm == 0) {
                continue;
            }
            if (v.length != query.length) {
                throw new IllegalArgumentException("the query vector has " + query.length
                        + " dimensions and the entry of " + e.id + " " + v.length);
            }
            double dot = 0;
            for (int d = 0; d < v.length; d++) {
                dot += v[d] * query[d];
            }
            semantic.offer(e.id, dot / (norm * e.norm));
        }
        out.semantic = semantic.best(false);
        out.legal = counted ? size : 0;
    }
}
