package dev.vintage.neo4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.neo4j.graphdb.GraphDatabaseService;

/**
 * {@code vintage.rank} ranks as the Cypher a stock server ranks with (graph/neo4j/
 * cypher_search.py {@code rank}): the same items, in the same order, with the same scores.
 *
 * <p>The corpus, the reads and both rounds of each read are {@link RankCases}, the exact
 * statements the Python store sends (tests/test_rank_twins.py captures them from its builders
 * and fails when they change and the file was not written again). Each round runs here on the
 * plugin loaded from plugins/ ({@link Server}), its columns built first as a search's
 * background build would.
 *
 * <p>Every score is equal to the bit: the text legs both read Lucene's BM25 of the same query
 * (a float widened to a double; an identifier count is a count), and the semantic leg's cosine
 * is computed by the plugin as Neo4j's {@code vector.similarity.cosine} computes it (both
 * vectors scaled to unit length in doubles, Lucene's {@code DOT_PRODUCT}, doubled back by the
 * Cypher; {@link Cosine}). So the order is equal too, ties broken by id on both paths.
 *
 * <p>Fusion (queries/search/fusion.py) is Python's and runs on whichever row came back; what
 * it reads of a row is the three legs and each leg's scores of the other legs' candidates
 * ({@code also} here, a round by id on the Cypher path), all held equal below.
 */
class RankTest {
    private static final List<String> LEGS = List.of("exact", "keyword", "semantic");

    /** One read's two rows. */
    private record Ranked(RankCases.Case read, Map<String, Object> plugin,
                          Map<String, Object> cypher) {
    }

    private static GraphDatabaseService db;
    private static final List<Ranked> RANKED = new ArrayList<>();

    @BeforeAll
    static void rankEveryReadBothWays() throws IOException {
        db = Server.db();
        RankCases golden = RankCases.read();
        golden.schema.forEach(RankTest::rows);
        db.executeTransactionally("CALL db.awaitIndexes(300)");
        golden.setup.forEach(RankTest::rows);
        assertEquals(golden.entries, rows(golden.columns).get(0).get("entries"),
                "the tenant's columns hold every entry of a fact not erased");
        for (RankCases.Case read : golden.cases) {
            List<Map<String, Object>> served = rows(read.plugin());
            assertEquals(1, served.size(), read.name() + ": no write since the columns");
            RANKED.add(new Ranked(read, served.get(0), rows(read.cypher()).get(0)));
        }
    }

    @Test
    void theTextLegsAreLucenesBm25AndTheIdentifierCountOnBothPathsToTheBit() {
        List<String> parted = new ArrayList<>();
        int[] answered = new int[2];
        for (Ranked r : RANKED) {
            for (String leg : List.of("exact", "keyword")) {
                if (!r.plugin.get(leg).equals(r.cypher.get(leg))) {
                    parted.add(r.read.name() + " " + leg + ": plugin " + r.plugin.get(leg)
                            + ", Cypher " + r.cypher.get(leg));
                }
                answered[leg.equals("exact") ? 0 : 1] += pairs(r.plugin, leg).isEmpty() ? 0 : 1;
            }
        }
        assertEquals(List.of(), parted);
        assertTrue(answered[0] > 3 && answered[1] > 10, "reads the legs answered: exact "
                + answered[0] + ", keyword " + answered[1]);
    }

    @Test
    void theSemanticLegIsTheSameCosineToTheBit() {
        List<String> parted = new ArrayList<>();
        double worst = 0;
        int answered = 0;
        for (Ranked r : RANKED) {
            List<List<Object>> plugin = pairs(r.plugin, "semantic");
            List<List<Object>> cypher = pairs(r.cypher, "semantic");
            if (!ids(plugin).equals(ids(cypher))) {
                parted.add(r.read.name() + ": plugin " + plugin + ", Cypher " + cypher);
                continue;
            }
            for (int i = 0; i < plugin.size(); i++) {
                worst = Math.max(worst, Math.abs(score(plugin.get(i)) - score(cypher.get(i))));
            }
            answered += plugin.isEmpty() ? 0 : 1;
        }
        assertEquals(List.of(), parted);
        assertEquals(0.0, worst, "the cosines part by " + worst);
        assertTrue(answered > 10, answered + " reads the semantic leg answered");
    }

    @Test
    void theCountsAreCyphersAndTheLegalSetIsTheOnePythonDecides() {
        List<String> parted = new ArrayList<>();
        int excluded = 0;
        for (Ranked r : RANKED) {
            for (String count : List.of("legal", "matched")) {
                if (!r.plugin.get(count).equals(r.cypher.get(count))) {
                    parted.add(r.read.name() + " " + count + ": plugin " + r.plugin.get(count)
                            + ", Cypher " + r.cypher.get(count));
                }
            }
            if (!byReason(r.plugin).equals(byReason(r.cypher))) {
                parted.add(r.read.name() + " excluded: plugin " + byReason(r.plugin)
                        + ", Cypher " + byReason(r.cypher));
            }
            if (r.read.counted() && r.read.legal() != (Long) r.plugin.get("legal")) {
                parted.add(r.read.name() + ": Python's legal set holds " + r.read.legal()
                        + ", the plugin's " + r.plugin.get("legal"));
            }
            excluded += byReason(r.plugin).isEmpty() ? 0 : 1;
        }
        assertEquals(List.of(), parted);
        assertTrue(excluded > 5, excluded + " reads matched an item that is not legal");
    }

    @Test
    void anItemThatIsNotLegalIsNeverScoredOnEitherPath() {
        List<String> scored = new ArrayList<>();
        for (Ranked r : RANKED) {
            Set<String> illegal = new TreeSet<>(r.read.illegal());
            Set<String> found = new TreeSet<>(found(r.plugin));
            found.addAll(found(r.cypher));
            also(r.plugin).values().forEach(pairs -> found.addAll(ids(pairs)));
            found.retainAll(illegal);
            if (!found.isEmpty()) {
                scored.add(r.read.name() + ": " + found);
            }
        }
        assertEquals(List.of(), scored);
    }

    @Test
    void tiesGoByIdOnBothPaths() {
        Map<String, Integer> ties = new TreeMap<>();
        for (Ranked r : RANKED) {
            for (Map<String, Object> row : List.of(r.plugin, r.cypher)) {
                for (String leg : LEGS) {
                    List<List<Object>> pairs = pairs(row, leg);
                    for (int i = 1; i < pairs.size(); i++) {
                        List<Object> a = pairs.get(i - 1);
                        List<Object> b = pairs.get(i);
                        if (score(a) == score(b)) {
                            assertTrue(((String) a.get(0)).compareTo((String) b.get(0)) < 0,
                                    r.read.name() + " " + leg + ": " + pairs);
                            ties.merge(leg, 1, Integer::sum);
                        }
                    }
                }
            }
        }
        assertEquals(Set.copyOf(LEGS), ties.keySet(), "the legs that met a tie: " + ties);
    }

    /** What queries.search._rescore asks by id on the Cypher path, the plugin gives in the
     * ranking round: each leg's scores of the other legs' candidates it did not return. */
    @Test
    void eachLegScoresTheOtherLegsCandidatesAsCypherDoesAskedById() {
        List<String> parted = new ArrayList<>();
        Map<String, Integer> given = new TreeMap<>();
        int everyLeg = 0;
        for (Ranked r : RANKED) {
            everyLeg += LEGS.stream().allMatch(leg -> !pairs(r.plugin, leg).isEmpty()) ? 1 : 0;
            Map<String, List<List<Object>>> also = also(r.plugin);
            assertEquals(r.read.rescore().keySet(), also.keySet(), r.read.name());
            for (var leg : r.read.rescore().entrySet()) {
                Set<String> asked = new TreeSet<>(found(r.plugin));
                asked.removeAll(ids(pairs(r.plugin, leg.getKey())));
                List<List<Object>> expected = asked.isEmpty() ? List.of() : pairs(rows(
                        leg.getValue().with(Map.of("asof_ids", List.copyOf(asked),
                                "per_leg", (long) asked.size()))).get(0), leg.getKey());
                Map<String, Double> want = scores(expected);
                Map<String, Double> got = scores(also.get(leg.getKey()));
                boolean same = want.keySet().equals(got.keySet()) && want.entrySet().stream()
                        .allMatch(e -> e.getValue().equals(got.get(e.getKey())));
                if (!same) {
                    parted.add(r.read.name() + " " + leg.getKey() + ": plugin " + got
                            + ", Cypher by id " + want);
                }
                given.merge(leg.getKey(), got.size(), Integer::sum);
            }
        }
        assertEquals(List.of(), parted);
        assertTrue(everyLeg > 3, everyLeg + " reads answered on all three legs");
        assertTrue(given.getOrDefault("keyword", 0) > 0 && given.getOrDefault("semantic", 0) > 0,
                "scores given beside the legs: " + given);
    }

    private static List<Map<String, Object>> rows(RankCases.Query q) {
        return db.executeTransactionally(q.text(), q.params(), result -> {
            List<Map<String, Object>> out = new ArrayList<>();
            result.forEachRemaining(out::add);
            return out;
        });
    }

    @SuppressWarnings("unchecked")
    private static List<List<Object>> pairs(Map<String, Object> row, String leg) {
        return (List<List<Object>>) row.get(leg);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, List<List<Object>>> also(Map<String, Object> row) {
        return (Map<String, List<List<Object>>>) row.get("also");
    }

    private static List<String> ids(Collection<List<Object>> pairs) {
        return pairs.stream().map(p -> (String) p.get(0)).toList();
    }

    private static double score(List<Object> pair) {
        return ((Number) pair.get(1)).doubleValue();
    }

    private static Map<String, Double> scores(List<List<Object>> pairs) {
        Map<String, Double> out = new TreeMap<>();
        pairs.forEach(p -> out.put((String) p.get(0), score(p)));
        return out;
    }

    private static Set<String> found(Map<String, Object> row) {
        Set<String> out = new TreeSet<>();
        LEGS.forEach(leg -> out.addAll(ids(pairs(row, leg))));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<Object, Object> byReason(Map<String, Object> row) {
        Map<Object, Object> out = new TreeMap<>();
        ((List<List<Object>>) row.get("excluded")).forEach(p -> out.put(p.get(0), p.get(1)));
        return out;
    }
}
