package dev.vintage.neo4j;

import java.util.Arrays;

import org.apache.lucene.util.Constants;

/**
 * Every entry's vector in one array, in the entries' order, so that the semantic leg's pass
 * reads memory front to back: a float[] per entry, scattered over the heap, made the same
 * pass three times slower (a 47,788 x 384 scan: 17 ms against 5.6 ms, the same arithmetic).
 *
 * <p>Each vector is kept scaled to unit length exactly as Neo4j 5.26's
 * {@code vector.similarity.cosine} scales a stored one before Lucene's dot product (the sum of
 * squares and the scale in doubles, each element rounded back to a float), so that
 * {@link Cosine}'s exact score of an entry is the Cypher path's to the bit.
 */
final class Vectors {
    // Lucene's scalar choice (org.apache.lucene.internal.vectorization.DefaultVectorUtilSupport),
    // so that the scan's estimate is close to VectorUtil.dotProduct's.
    private static final boolean FMA = Constants.HAS_FAST_SCALAR_FMA;

    private float[] values;
    private final int[] start; // by entry ord; -1: no vector
    private final int[] length;

    private Vectors(float[] values, int[] start, int[] length) {
        this.values = values;
        this.start = start;
        this.length = length;
    }

    /** Collects the vectors of entries 0, 1, 2... in order; {@link #done} packs them. */
    static final class Builder {
        private float[] values = new float[1 << 16];
        private int size;
        private int[] start = new int[256];
        private int[] length = new int[256];
        private int entries;

        /** The next entry's vector (null: none), packed at unit length and zeroed in the
         * caller's array; its squared norm before scaling, in doubles. */
        double add(float[] vector) {
            if (entries == start.length) {
                start = Arrays.copyOf(start, entries * 2);
                length = Arrays.copyOf(length, entries * 2);
            }
            if (vector == null) {
                start[entries] = -1;
                length[entries++] = 0;
                return 0;
            }
            if (size + vector.length > values.length) {
                float[] grown = Arrays.copyOf(values, Math.max(values.length * 2,
                        size + vector.length));
                Arrays.fill(values, 0f); // no copy of a vector outlives what clear() zeroes
                values = grown;
            }
            double sum = 0;
            for (float x : vector) {
                sum += (double) x * x;
            }
            double scale = 1.0 / Math.sqrt(sum); // unused when the sum is 0: it never scores
            for (int i = 0; i < vector.length; i++) {
                values[size + i] = sum > 0 ? (float) (vector[i] * scale) : 0f;
            }
            start[entries] = size;
            length[entries++] = vector.length;
            size += vector.length;
            Arrays.fill(vector, 0f); // the caller's copy (the property read), now packed here
            return sum;
        }

        /** The packed vectors; the builder's growth slack is let go (zeroed first). */
        Vectors done() {
            float[] packed = Arrays.copyOf(values, size);
            Arrays.fill(values, 0f);
            values = null;
            return new Vectors(packed, Arrays.copyOf(start, entries),
                    Arrays.copyOf(length, entries));
        }
    }

    boolean has(int ord) {
        return start[ord] >= 0;
    }

    int dimensions(int ord) {
        return length[ord];
    }

    long bytes() {
        return 4L * values.length + 8L * start.length;
    }

    /** The entry's vector, a copy (for Lucene's own dot product, {@link Cosine#of}). */
    float[] copy(int ord) {
        return Arrays.copyOfRange(values, start[ord], start[ord] + length[ord]);
    }

    /** The entry's dot product with {@code q} (of its length): DefaultVectorUtilSupport's
     * four sums, then the remainder, each step a fused multiply-add where Lucene uses one
     * (Lucene may sum otherwise at run time, with the JDK's vector API: {@link Cosine} takes
     * this as a close estimate and scores the best exactly). */
    double dot(int ord, float[] q) {
        float[] v = values;
        int at = start[ord];
        int n = length[ord];
        float res = 0f;
        int i = 0;
        if (n > 32) {
            float acc1 = 0f;
            float acc2 = 0f;
            float acc3 = 0f;
            float acc4 = 0f;
            int upper = n & ~3;
            for (; i < upper; i += 4) {
                acc1 = fma(v[at + i], q[i], acc1);
                acc2 = fma(v[at + i + 1], q[i + 1], acc2);
                acc3 = fma(v[at + i + 2], q[i + 2], acc3);
                acc4 = fma(v[at + i + 3], q[i + 3], acc4);
            }
            res += acc1 + acc2 + acc3 + acc4;
        }
        for (; i < n; i++) {
            res = fma(v[at + i], q[i], res);
        }
        return res;
    }

    private static float fma(float a, float b, float c) {
        return FMA ? Math.fma(a, b, c) : a * b + c;
    }

    /** Zeroed and let go: an erased fact's vector must not outlive its eviction here. */
    void clear() {
        if (values != null) {
            Arrays.fill(values, 0f);
            values = null;
        }
    }
}
