package dev.vintage.neo4j;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;

import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Weight;
import org.neo4j.internal.kernel.api.IndexReadSession;
import org.neo4j.internal.kernel.api.PropertyIndexQuery;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.api.impl.index.SearcherReference;
import org.neo4j.kernel.api.impl.index.partition.Neo4jIndexSearcher;
import org.neo4j.procedure.TerminationGuard;

/**
 * The full-text query's hits straight from Lucene, in the index's order. The kernel's cursor
 * puts every hit of an unlimited query into a priority queue and hands them back best first
 * (Neo4j's {@code ScoredEntityResultCollector}): a third of a filing question's text pass in a
 * JFR profile, for an order the ranker does not use ({@link Rank} only marks the hits).
 *
 * <p>It asks Lucene what Neo4j's own full-text reader asks, the same way (the query parsed by
 * the reader, rewritten, weighed by its statistics-caching searcher in {@code COMPLETE} score
 * mode), so each hit's BM25 score is the one {@code db.index.fulltext.queryNodes} gives; only
 * the collector differs. That reader's parts are not public API: they are reached by
 * reflection, for the Neo4j version the launcher pins, and whenever they are not there, or the
 * transaction has state of its own (which Neo4j's reader would search too), {@link #hits}
 * answers false and the caller reads through the kernel's cursor.
 */
final class TextPass {
    private static final String ID_FIELD = "__neo4j__lucene__fulltext__index__internal__id__";
    private static final LongPredicate NONE = id -> false;

    private static final Field READER;
    private static final Class<?> FULLTEXT;
    private static final Field SEARCHERS;
    private static final Method TO_QUERY;
    private static final Constructor<?> PREPARED;
    private static final Constructor<?> STATS;
    private static final Constructor<?> CACHING;
    /** Whether this Neo4j has the parts; false: every pass goes through the kernel's cursor. */
    static final boolean AVAILABLE;
    /** Passes served here, and passes left to the kernel's cursor (vintage.text_passes). */
    static final AtomicLong DIRECT = new AtomicLong();
    static final AtomicLong KERNEL = new AtomicLong();

    static {
        Field reader = null;
        Class<?> fulltext = null;
        Field searchers = null;
        Method toQuery = null;
        Constructor<?> prepared = null;
        Constructor<?> stats = null;
        Constructor<?> caching = null;
        boolean available;
        try {
            reader = Class.forName("org.neo4j.kernel.impl.newapi.DefaultIndexReadSession")
                    .getDeclaredField("reader");
            fulltext = Class.forName("org.neo4j.kernel.api.impl.fulltext.FulltextIndexReader");
            searchers = fulltext.getDeclaredField("searchers");
            toQuery = fulltext.getDeclaredMethod("toLuceneQuery", PropertyIndexQuery.class);
            Class<?> preparedSearch =
                    Class.forName("org.neo4j.kernel.api.impl.fulltext.PreparedSearch");
            prepared = preparedSearch.getDeclaredConstructor(Neo4jIndexSearcher.class,
                    LongPredicate.class);
            Class<?> statsCollector =
                    Class.forName("org.neo4j.kernel.api.impl.fulltext.StatsCollector");
            stats = statsCollector.getDeclaredConstructor(List.class);
            caching = Class.forName("org.neo4j.kernel.api.impl.fulltext.StatsCachingIndexSearcher")
                    .getDeclaredConstructor(preparedSearch, statsCollector);
            for (var member : List.of(reader, searchers, toQuery, prepared, stats, caching)) {
                member.setAccessible(true);
            }
            available = true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            available = false;
        }
        READER = reader;
        FULLTEXT = fulltext;
        SEARCHERS = searchers;
        TO_QUERY = toQuery;
        PREPARED = prepared;
        STATS = stats;
        CACHING = caching;
        AVAILABLE = available;
    }

    private TextPass() {
    }

    /** Each node the query {@code lucene} yields, with its score, in the index's order; false
     * (and nothing yielded) when this pass cannot serve it: then ask the kernel's cursor. */
    static boolean hits(KernelTransaction k, IndexReadSession session, String lucene,
                        TerminationGuard guard, Columns.Hit each) throws Exception {
        if (!AVAILABLE || k.queryContext().getTransactionStateOrNull() != null
                || !READER.getDeclaringClass().isInstance(session)) {
            KERNEL.incrementAndGet();
            return false;
        }
        Object reader = READER.get(session);
        @SuppressWarnings("unchecked")
        List<SearcherReference> partitions = FULLTEXT.isInstance(reader)
                ? (List<SearcherReference>) SEARCHERS.get(reader) : List.of();
        if (partitions.isEmpty()) {
            KERNEL.incrementAndGet();
            return false;
        }
        Query query;
        try {
            query = (Query) TO_QUERY.invoke(reader, PropertyIndexQuery.fulltextSearch(lucene));
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
        query = partitions.get(0).getIndexSearcher().rewrite(query);
        List<Object> prepared = new java.util.ArrayList<>(partitions.size());
        for (SearcherReference partition : partitions) {
            prepared.add(PREPARED.newInstance(partition.getIndexSearcher(), NONE));
        }
        Object stats = STATS.newInstance(prepared);
        for (int i = 0; i < partitions.size(); i++) {
            IndexSearcher weighing = (IndexSearcher) CACHING.newInstance(prepared.get(i), stats);
            Weight weight = weighing.createWeight(query, ScoreMode.COMPLETE, 1f);
            partitions.get(i).getIndexSearcher().search(weight, new Each(each, guard));
        }
        DIRECT.incrementAndGet();
        return true;
    }

    /** Hands each hit on as Lucene scores it: its node from the id field, its BM25 score. */
    private record Each(Columns.Hit each, TerminationGuard guard) implements Collector {
        @Override
        public ScoreMode scoreMode() {
            return ScoreMode.COMPLETE;
        }

        @Override
        public LeafCollector getLeafCollector(LeafReaderContext leaf) throws IOException {
            NumericDocValues ids = leaf.reader().getNumericDocValues(ID_FIELD);
            return new LeafCollector() {
                private Scorable scorer;
                private int seen;

                @Override
                public void setScorer(Scorable scorer) {
                    this.scorer = scorer;
                }

                @Override
                public void collect(int doc) throws IOException {
                    if ((++seen & 4095) == 0) {
                        guard.check();
                    }
                    if (ids != null && ids.advanceExact(doc)) {
                        each.accept(ids.longValue(), scorer.score());
                    }
                }
            };
        }
    }
}
