package dev.vintage.neo4j;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * {@link Cosine#best} keeps only the entries near the best estimates for the exact score: its
 * answer must be the best {@code k} of every legal entry by that exact score ({@link Cosine#of}),
 * ties by id, whatever order the entries come in, with many entries a few ulps apart (copies of
 * one vector, slightly moved) and with fewer legal entries than {@code k}.
 */
class CosineTest {
    private static final int DIMENSIONS = 48;

    @Test
    void theBestAreTheExactBestOfEveryLegalEntryTiesById() {
        Random random = new Random(7);
        for (int round = 0; round < 60; round++) {
            int size = 1 + random.nextInt(400);
            long k = 1L + random.nextInt(60);
            Vectors.Builder built = new Vectors.Builder();
            Columns.Entry[] entries = new Columns.Entry[size];
            float[] base = vector(random);
            for (int i = 0; i < size; i++) {
                // A third are the same vector moved by a few ulps: near ties for the band.
                float[] v = random.nextInt(3) == 0 ? nudged(base, random) : vector(random);
                entries[i] = entry(i, random.nextInt(5) == 0 ? "erased" : "kept",
                        built.add(v));
            }
            Vectors vectors = built.done();
            List<Double> asked = new ArrayList<>();
            for (float x : random.nextBoolean() ? base : vector(random)) {
                asked.add((double) x);
            }
            Cosine cosine = Cosine.of(asked, "m", vectors);
            Legal legal = new Legal(request());
            List<List<Object>> got = cosine.best(entries, legal, k).best(false);
            assertEquals(exact(cosine, entries, legal, k), got, "round " + round);
        }
    }

    private static List<List<Object>> exact(Cosine cosine, Columns.Entry[] entries, Legal legal,
                                            long k) {
        List<List<Object>> all = new ArrayList<>();
        for (Columns.Entry e : entries) {
            if (legal.reason(e) == null && cosine.scores(e)) {
                all.add(List.of(e.id, cosine.of(e)));
            }
        }
        all.sort(Comparator.comparing((List<Object> r) -> -(double) r.get(1))
                .thenComparing(r -> (String) r.get(0)));
        return all.subList(0, (int) Math.min(k, all.size()));
    }

    private static float[] vector(Random random) {
        float[] v = new float[DIMENSIONS];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) random.nextGaussian();
        }
        return v;
    }

    private static float[] nudged(float[] base, Random random) {
        float[] v = base.clone();
        for (int i = 0; i < v.length; i++) {
            for (int step = random.nextInt(3); step > 0; step--) {
                v[i] = Math.nextUp(v[i]);
            }
        }
        return v;
    }

    private static Columns.Entry entry(int ord, String status, double norm) {
        Columns.Entry e = new Columns.Entry();
        e.ord = ord;
        e.id = String.format("f%04d", ord);
        e.erased = status.equals("erased");
        e.available = 0;
        e.supersededAt = Columns.OPEN;
        e.supersededRecordedAt = Columns.OPEN;
        e.recorded = 0;
        e.invalidated = Columns.OPEN;
        e.status = "active";
        e.validFrom = 0;
        e.validTo = Columns.OPEN;
        e.expires = Columns.OPEN;
        e.kind = "memory";
        e.predicate = "p";
        e.model = "m";
        e.norm = norm;
        return e;
    }

    private static Map<String, Object> request() {
        Map<String, Object> r = new HashMap<>();
        r.put("scope", List.of());
        r.put("shared_only", false);
        r.put("known", 10L);
        r.put("system", 10L);
        r.put("statuses", List.of("active"));
        return r;
    }
}
