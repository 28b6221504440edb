package dev.vintage.neo4j;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
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
 * <p>The text legs still ask Lucene ({@link FullText}): its BM25 scores are the keyword leg's,
 * and only the entries it yields count; the columns replace reading each hit's node. The
 * semantic leg is an exact cosine over every legal entry of the query's model.
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
        // Each leg's scores of the other legs' best that it lacks (Rank#also).
        public Map<String, Object> also;
    }

    public static class Built {
        public long entries;
    }

    /** How the full-text index was read since the server started (FullText). */
    public static class Passes {
        public long lucene;
        public long kernel;
        public String unavailable; // why Lucene is not read directly here, or null
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

    @Procedure(name = "vintage.text_passes", mode = Mode.READ)
    @Description("How many full-text reads of the ranker went to Lucene directly, and how many "
            + "through the kernel's cursor (a transaction with state of its own, an access mode "
            + "that filters hits, or Lucene's parts not reachable: then why), since start.")
    public Stream<Passes> textPasses() {
        Passes out = new Passes();
        out.lucene = FullText.DIRECT.get();
        out.kernel = FullText.KERNEL.get();
        out.unavailable = FullText.unavailable();
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

    /** The text query's hits among the entries, by their place: Lucene yields them in its own
     * order, scattered over the heap, and reading each entry then waited on memory; the one
     * pass in the entries' order reads them instead (a JFR profile: most of a text leg's time).
     * Never compared, so the arrays' identity equality does not matter. */
    @SuppressWarnings("ArrayRecordComponent")
    private record TextHits(BitSet found, float[] scores) {
        static TextHits of(Columns columns, KernelTransaction k, String text,
                           TerminationGuard guard) throws Exception {
            TextHits hits = new TextHits(new BitSet(columns.entries.length),
                    new float[columns.entries.length]);
            FullText.hits(k, text, guard, (node, score) -> {
                int ord = columns.ord(node);
                if (ord >= 0) { // else not the tenant's
                    hits.found.set(ord);
                    hits.scores[ord] = score;
                }
            });
            return hits;
        }
    }

    @SuppressWarnings("unchecked")
    private Ranked rank(Columns columns, Map<String, Object> r) throws Exception {
        Legal legal = new Legal(r);
        long perLeg = (Long) r.get("per_leg");
        Columns.Entry[] visible = columns.within(legal.scope, legal.sharedOnly);
        Cosine cosine = Cosine.of((List<Double>) r.get("vector"), (String) r.get("model"),
                columns.vectors);
        // The semantic leg reads only the columns: it scans on a helper thread while Lucene
        // answers the text query on this one (the kernel's cursors are this thread's alone).
        Future<Top> semantic = cosine == null ? null
                : Cosine.SCANS.submit(() -> cosine.best(visible, legal, perLeg));
        try {
            return rank(columns, r, legal, visible, cosine, semantic);
        } finally {
            if (semantic != null) {
                Cosine.settle(semantic); // done before the columns can be let go
            }
        }
    }

    @SuppressWarnings("unchecked")
    private Ranked rank(Columns columns, Map<String, Object> r, Legal legal,
                        Columns.Entry[] visible, Cosine cosine, Future<Top> scanned)
            throws Exception {
        long perLeg = (Long) r.get("per_leg");
        boolean counted = Boolean.TRUE.equals(r.get("counted"));
        String text = (String) r.get("text");
        // One Lucene pass for both text legs: an entry carrying an identifier matches the text
        // query too (its terms are among the query's), so the exact leg is the legal hits that
        // carry one, counted on the entry's terms as Cypher counts them.
        TextHits hits = text == null ? null : TextHits.of(columns, ktx(), text, guard);
        Identifiers ids = new Identifiers(hits == null ? List.of()
                : (List<String>) r.get("identifiers"), columns);
        Top keyword = hits == null ? null : new Top(perLeg);
        Top exact = hits == null || ids.none() ? null : new Top(perLeg);
        TreeMap<String, Long> excluded = new TreeMap<>();
        long matched = 0;
        long legalSize = 0;
        int seen = 0;
        // One pass over the entries the scope can see, in order: each entry's reason is
        // decided once for both text legs and the counts.
        for (Columns.Entry e : visible) {
            if ((++seen & 4095) == 0) {
                guard.check();
            }
            if (!legal.inScope(e)) {
                continue; // beyond the scope: never counted, as a hit or as legal
            }
            boolean hit = hits != null && hits.found.get(e.ord);
            matched += hit ? 1 : 0;
            String reason = legal.reasonInScope(e);
            if (reason != null) {
                if (hit) {
                    excluded.merge(reason, 1L, Long::sum);
                }
                continue;
            }
            legalSize++;
            if (hit) {
                float score = hits.scores[e.ord];
                keyword.offer(e, score);
                int n = exact == null ? 0 : ids.carried(e);
                if (n > 0) {
                    exact.offer(e, n);
                }
            }
        }
        Top semantic = scanned == null ? new Top(perLeg) : Cosine.result(scanned);
        Ranked out = new Ranked();
        if (keyword != null) {
            out.keyword = keyword.best(false);
        }
        if (exact != null) {
            out.exact = exact.best(true);
        }
        out.semantic = semantic.best(false);
        if (counted) {
            out.legal = legalSize;
            if (hits != null) {
                out.matched = matched;
                excluded.forEach((reason, n) -> out.excluded.add(List.of(reason, n)));
            }
        }
        out.also = also(keyword, exact, semantic, hits, cosine);
        return out;
    }

    /**
     * What {@code queries.search._rescore} would ask for next, from this same read: each leg's
     * scores of the other legs' best that its own best lacks (a cosine by the query's model;
     * a BM25 where the text matched: every entry a leg returned is legal, so a hit is one the
     * keyword leg scored). A leg's score of an item does not depend on the depth.
     */
    private static Map<String, Object> also(Top keyword, Top exact, Top semantic,
                                            TextHits hits, Cosine cosine) {
        Set<Columns.Entry> found = Collections.newSetFromMap(new IdentityHashMap<>());
        Set<Columns.Entry> inKeyword = keyword == null ? Set.of() : keyword.entries();
        Set<Columns.Entry> inSemantic = cosine == null ? Set.of() : semantic.entries();
        found.addAll(inKeyword);
        found.addAll(inSemantic);
        if (exact != null) {
            found.addAll(exact.entries());
        }
        Map<String, Object> also = new TreeMap<>();
        if (keyword != null) {
            List<List<Object>> rows = new ArrayList<>();
            for (Columns.Entry e : found) {
                if (!inKeyword.contains(e) && hits.found.get(e.ord)) {
                    rows.add(List.of(e.id, (double) hits.scores[e.ord]));
                }
            }
            also.put("keyword", rows);
        }
        if (cosine != null) {
            List<List<Object>> rows = new ArrayList<>();
            for (Columns.Entry e : found) {
                if (!inSemantic.contains(e) && cosine.scores(e)) {
                    rows.add(List.of(e.id, cosine.of(e)));
                }
            }
            also.put("semantic", rows);
        }
        return also;
    }
}
