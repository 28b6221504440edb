package dev.vintage.neo4j;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.apache.lucene.index.VectorSimilarityFunction;

/**
 * The semantic leg's measure: the query's cosine with an entry of its model, the very number
 * the Cypher path ranks by. Neo4j 5.26's {@code vector.similarity.cosine} scales both vectors
 * to unit length in doubles, rounds them to floats, and hands back Lucene's
 * {@code DOT_PRODUCT} score, {@code (1 + dot) / 2} as a float, which the Cypher doubles back
 * ({@code 2 * score - 1}; graph/neo4j/cypher_search.py). {@link #of} computes exactly that
 * (RankTest holds the two equal to the bit). A scan of every legal entry estimates it with
 * {@link Vectors#dot} (Lucene's summation may differ at run time, in the last bits), keeps
 * the best {@code k} estimates and every entry within {@link #BAND} of the worst kept, and
 * ranks those by the exact score: two entries a few ulps apart are never ordered otherwise
 * than the Cypher orders them.
 */
final class Cosine {
    // Far wider than an estimate's error (a few float ulps of a value in [-1, 1]).
    static final double BAND = 1e-4;
    // The first size of the held entries' arrays (they double when full).
    private static final int NEAR = 64;

    // The semantic scans of searches (Rank): a thread per core, at most four, daemons (a
    // scan never holds the server open).
    static final ExecutorService SCANS = Executors.newFixedThreadPool(
            Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())), job -> {
                Thread thread = new Thread(job, "vintage-semantic-scan");
                thread.setDaemon(true);
                return thread;
            });

    private final float[] query; // at unit length, as Neo4j scales a parameter
    private final String model;
    private final Vectors vectors;

    private Cosine(float[] query, String model, Vectors vectors) {
        this.query = query;
        this.model = model;
        this.vectors = vectors;
    }

    static Cosine of(List<Double> asked, String model, Vectors vectors) {
        if (asked == null || model == null) {
            return null;
        }
        double sum = 0;
        for (Double x : asked) {
            sum += x * x;
        }
        double scale = sum > 0 ? 1.0 / Math.sqrt(sum) : 0;
        float[] query = new float[asked.size()];
        for (int i = 0; i < query.length; i++) {
            query[i] = (float) (asked.get(i) * scale);
        }
        return new Cosine(query, model, vectors);
    }

    boolean scores(Columns.Entry e) {
        if (!vectors.has(e.ord) || !model.equals(e.model) || e.norm == 0) {
            return false;
        }
        if (vectors.dimensions(e.ord) != query.length) {
            throw new IllegalArgumentException("the query vector has " + query.length
                    + " dimensions and the entry of " + e.id + " "
                    + vectors.dimensions(e.ord));
        }
        return true;
    }

    /** The entry's cosine, exactly as the Cypher path computes it. */
    double of(Columns.Entry e) {
        float score = VectorSimilarityFunction.DOT_PRODUCT.compare(vectors.copy(e.ord), query);
        return 2 * (double) score - 1;
    }

    /**
     * The best {@code k} of the legal entries among {@code visible}, by this cosine. Only the
     * entries within {@link #BAND} of the worst estimate kept when they came are held for the
     * exact score: the worst kept only rises, so an entry turned away then is below the final
     * floor too. A few more than {@code k}, where one slot per visible entry was allocated.
     */
    Top best(Columns.Entry[] visible, Legal legal, long k) {
        Top estimated = new Top(k);
        Columns.Entry[] near = new Columns.Entry[NEAR];
        double[] estimate = new double[NEAR];
        int n = 0;
        long legalScored = 0;
        for (Columns.Entry e : visible) {
            if (legal.inScope(e) && legal.reasonInScope(e) == null && scores(e)) {
                double x = vectors.dot(e.ord, query);
                legalScored++;
                if (k > 0 && (!estimated.full() || x >= estimated.worst() - BAND)) {
                    if (n == near.length) {
                        near = Arrays.copyOf(near, 2 * n);
                        estimate = Arrays.copyOf(estimate, 2 * n);
                    }
                    near[n] = e;
                    estimate[n++] = x;
                }
                estimated.offer(e, x);
            }
        }
        double floor = k > 0 && legalScored > k ? estimated.worst() - BAND
                : Double.NEGATIVE_INFINITY;
        Top top = new Top(k);
        for (int i = 0; i < n; i++) {
            if (estimate[i] >= floor) {
                top.offer(near[i], of(near[i]));
            }
        }
        return top;
    }

    /** A scan's leg; its own error (a vector of another length) raised as it was thrown. */
    static Top result(Future<Top> scan) throws Exception {
        try {
            return scan.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    /** Waits for a scan to end, however it ends. */
    static void settle(Future<Top> scan) {
        boolean interrupted = false;
        while (true) {
            try {
                scan.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException e) {
                break; // raised by result(), or moot: the search failed first
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
