package dev.vintage.neo4j;

import java.util.List;

import org.apache.lucene.util.VectorUtil;

/** The semantic leg's measure: the query's cosine with an entry of its model. */
final class Cosine {
    private final float[] query;
    private final double norm;
    private final String model;

    private Cosine(float[] query, double norm, String model) {
        this.query = query;
        this.norm = norm;
        this.model = model;
    }

    static Cosine of(List<Double> asked, String model) {
        if (asked == null || model == null) {
            return null;
        }
        float[] query = new float[asked.size()];
        double norm = 0;
        for (int i = 0; i < query.length; i++) {
            query[i] = asked.get(i).floatValue();
            norm += (double) query[i] * query[i];
        }
        return new Cosine(query, Math.sqrt(norm), model);
    }

    boolean scores(Columns.Entry e) {
        if (e.vector == null || !model.equals(e.model) || e.norm == 0) {
            return false;
        }
        if (e.vector.length != query.length) {
            throw new IllegalArgumentException("the query vector has " + query.length
                    + " dimensions and the entry of " + e.id + " " + e.vector.length);
        }
        return true;
    }

    double of(Columns.Entry e) {
        return dot(e.vector, query) / (norm * e.norm);
    }

    // Lucene's dot product, as Neo4j's own cosine uses: unrolled float sums (and the
    // vector API where the JDK has it), about three times a plain running sum's speed;
    // the semantic leg is bound by reading the vectors.
    private static double dot(float[] v, float[] q) {
        return VectorUtil.dotProduct(v, q);
    }
}
