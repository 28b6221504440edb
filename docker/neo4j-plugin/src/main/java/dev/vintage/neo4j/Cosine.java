package dev.vintage.neo4j;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** The semantic leg's measure: the query's cosine with an entry of its model. */
final class Cosine {
    // The semantic scans of searches (Rank): a thread per core, at most four, daemons (a
    // scan never holds the server open).
    static final ExecutorService SCANS = Executors.newFixedThreadPool(
            Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())), job -> {
                Thread thread = new Thread(job, "vintage-semantic-scan");
                thread.setDaemon(true);
                return thread;
            });

    private final float[] query;
    private final double norm;
    private final String model;
    private final Vectors vectors;

    private Cosine(float[] query, double norm, String model, Vectors vectors) {
        this.query = query;
        this.norm = norm;
        this.model = model;
        this.vectors = vectors;
    }

    static Cosine of(List<Double> asked, String model, Vectors vectors) {
        if (asked == null || model == null) {
            return null;
        }
        float[] query = new float[asked.size()];
        double norm = 0;
        for (int i = 0; i < query.length; i++) {
            query[i] = asked.get(i).floatValue();
            norm += (double) query[i] * query[i];
        }
        return new Cosine(query, Math.sqrt(norm), model, vectors);
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

    double of(Columns.Entry e) {
        return vectors.dot(e.ord, query) / (norm * e.norm);
    }

    /** The best {@code k} of the legal entries among {@code visible}, by this cosine. */
    Top best(Columns.Entry[] visible, Legal legal, long k) {
        Top top = new Top(k);
        for (Columns.Entry e : visible) {
            if (legal.inScope(e) && legal.reasonInScope(e) == null && scores(e)) {
                top.offer(e, of(e));
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
