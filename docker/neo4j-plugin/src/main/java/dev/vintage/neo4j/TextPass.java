package dev.vintage.neo4j;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
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
import org.neo4j.internal.kernel.api.security.AccessMode;
import org.neo4j.internal.schema.IndexDescriptor;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.api.impl.fulltext.LuceneFulltextDocumentStructure;
import org.neo4j.kernel.api.impl.index.SearcherReference;
import org.neo4j.kernel.api.impl.index.partition.Neo4jIndexSearcher;
import org.neo4j.procedure.TerminationGuard;

/**
 * A full-text query's hits straight from Lucene, in the index's order ({@link FullText}). The
 * kernel's cursor puts every hit of an unlimited query into a priority queue and hands them
 * back best first (Neo4j's {@code ScoredEntityResultCollector}): a third of a filing question's
 * text pass in a JFR profile, for an order the ranker does not use ({@link Rank} only marks
 * the hits).
 *
 * <p>It asks Lucene what Neo4j's own full-text reader asks, the same way (the query parsed by
 * the reader, rewritten, weighed by its statistics-caching searcher in {@code COMPLETE} score
 * mode, each partition searched by its own searcher, which skips deleted documents), so each
 * hit's BM25 score is the one {@code db.index.fulltext.queryNodes} gives; only the collector
 * differs. That reader's parts are not public API: they are reached by reflection, for the
 * Neo4j version the build pins (docker/pom.xml; PluginTest fails the build when they move).
 * {@link #hits} declines (false, nothing yielded) wherever the kernel's cursor would read
 * otherwise: the transaction has state of its own (which
 * Neo4j's reader also searches), or its access mode does not let it see every node and the
 * indexed property (the cursor then filters hits; Community edition always lets it).
 */
final class TextPass {
    private static final String ID_FIELD = LuceneFulltextDocumentStructure.FIELD_ENTITY_ID;

    private static final Field READER;
    private static final Class<?> FULLTEXT;
    private static final Field SEARCHERS;
    private static final Method TO_QUERY;
    private static final Constructor<?> PREPARED;
    private static final Constructor<?> STATS;
    private static final Constructor<?> CACHING;
    private static final String UNAVAILABLE; // why this Neo4j lacks the parts, or null

    static {
        Field reader = null;
        Class<?> fulltext = null;
        Field searchers = null;
        Method toQuery = null;
        Constructor<?> prepared = null;
        Constructor<?> stats = null;
        Constructor<?> caching = null;
        String unavailable = null;
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
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            unavailable = e.toString();
        }
        READER = reader;
        FULLTEXT = fulltext;
        SEARCHERS = searchers;
        TO_QUERY = toQuery;
        PREPARED = prepared;
        STATS = stats;
        CACHING = caching;
        UNAVAILABLE = unavailable;
    }

    private TextPass() {
    }

    /** Why this Neo4j lacks the parts of its reader this pass needs, or null. */
    static String unavailable() {
        return UNAVAILABLE;
    }

    /** Each node the query {@code lucene} yields, with its score, in the index's order; false
     * (and nothing yielded) when this pass cannot serve it: then ask the kernel's cursor. */
    static boolean hits(KernelTransaction k, IndexDescriptor index, IndexReadSession session,
                        String lucene, TerminationGuard guard, FullText.Hit each)
            throws Exception {
        if (UNAVAILABLE != null || k.queryContext().getTransactionStateOrNull() != null
                || !seesAll(k.securityContext().mode(), index)
                || !READER.getDeclaringClass().isInstance(session)) {
            return false;
        }
        Object reader = READER.get(session);
        @SuppressWarnings("unchecked")
        List<SearcherReference> partitions = FULLTEXT.isInstance(reader)
                ? (List<SearcherReference>) SEARCHERS.get(reader) : List.of();
        if (partitions.isEmpty()) {
            return false;
        }
        Query query;
        try {
            query = (Query) TO_QUERY.invoke(reader, PropertyIndexQuery.fulltextSearch(lucene));
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
        query = partitions.get(0).getIndexSearcher().rewrite(query);
        List<Object> prepared = new ArrayList<>(partitions.size());
        for (SearcherReference partition : partitions) {
            LongPredicate none = TextPass::noneDeleted;
            prepared.add(PREPARED.newInstance(partition.getIndexSearcher(), none));
        }
        Object stats = STATS.newInstance(prepared);
        Each collector = new Each(each, guard);
        for (int i = 0; i < partitions.size(); i++) {
            IndexSearcher weighing = (IndexSearcher) CACHING.newInstance(prepared.get(i), stats);
            Weight weight = weighing.createWeight(query, ScoreMode.COMPLETE, 1f);
            partitions.get(i).getIndexSearcher().search(weight, collector);
        }
        return true;
    }

    /** Whether {@code mode} sees every node and the index's properties: the cursor's own
     * test for reading an index's hits unfiltered. */
    private static boolean seesAll(AccessMode mode, IndexDescriptor index) {
        if (!mode.allowsTraverseAllLabels()) {
            return false;
        }
        for (int property : index.schema().getPropertyIds()) {
            if (!mode.allowsReadPropertyAllLabels(property)) {
                return false;
            }
        }
        return true;
    }

    /** Hands each hit on as Lucene scores it: its node from the id field, its BM25 score. One
     * for the whole pass, so the guard counts every hit, whatever the segments. */
    private static final class Each implements Collector {
        private final FullText.Hit each;
        private final TerminationGuard guard;
        private int seen;

        Each(FullText.Hit each, TerminationGuard guard) {
            this.each = each;
            this.guard = guard;
        }

        @Override
        public ScoreMode scoreMode() {
            return ScoreMode.COMPLETE;
        }

        @Override
        public LeafCollector getLeafCollector(LeafReaderContext leaf) throws IOException {
            guard.check();
            NumericDocValues ids = leaf.reader().getNumericDocValues(ID_FIELD);
            return new LeafCollector() {
                private Scorable scorer;

                @Override
                public void setScorer(Scorable scorer) {
                    this.scorer = scorer;
                }

                @Override
                public void collect(int doc) throws IOException {
                    if ((++seen & 4095) == 0) {
                        guard.check();
                    }
                    if (ids == null || !ids.advanceExact(doc)) { // as Neo4j's collector fails
                        throw new IllegalStateException("full-text document " + doc
                                + " has no node id");
                    }
                    each.accept(ids.longValue(), scorer.score());
                }
            };
        }
    }

    /** The searcher's filter of deleted entities: none, since the pass declines whenever the
     * transaction has state of its own ({@link #hits}). */
    private static boolean noneDeleted(long id) {
        return false;
    }
}
