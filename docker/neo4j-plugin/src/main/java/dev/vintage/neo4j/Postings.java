package dev.vintage.neo4j;

import java.util.HashMap;
import java.util.Map;

import org.eclipse.collections.impl.list.mutable.primitive.IntArrayList;

/**
 * Which entries carry each term, as their places in {@link Columns#entries}, ascending: what
 * the exact leg counts a query's identifiers on ({@link Identifiers}).
 *
 * <p>A term counts as Cypher's {@code (f.search_terms + ' ') CONTAINS (' ' + i + ' ')} does
 * for a term {@code i} without spaces: a whole term after a space, so never the first (the
 * entry's tenant token) and once however often it repeats. Before, each legal hit's own term
 * hashes and text were read, two cold objects per entry: most of the leg's time (bench/RESULTS.md).
 */
final class Postings {
    private static final IntArrayList NONE = new IntArrayList(0);
    private final Map<String, IntArrayList> byTerm = new HashMap<>();

    /** Adds the terms of the entry at {@code ord}; entries come in ascending order. */
    void add(int ord, String terms) {
        int at = terms.indexOf(' ');
        while (at >= 0) {
            int end = terms.indexOf(' ', at + 1);
            String term = terms.substring(at + 1, end < 0 ? terms.length() : end);
            if (!term.isEmpty()) {
                IntArrayList carrying = byTerm.computeIfAbsent(term, t -> new IntArrayList(4));
                if (carrying.isEmpty() || carrying.getLast() != ord) {
                    carrying.add(ord);
                }
            }
            at = end;
        }
    }

    /** Trims the lists once every entry is added; what they take, roughly. */
    long done() {
        long bytes = 0;
        for (Map.Entry<String, IntArrayList> e : byTerm.entrySet()) {
            e.getValue().trimToSize();
            bytes += 96L + 2L * e.getKey().length() + 4L * e.getValue().size();
        }
        return bytes;
    }

    /** The places of the entries carrying {@code term}, ascending. */
    IntArrayList carrying(String term) {
        return byTerm.getOrDefault(term, NONE);
    }

    /** Let the terms go (a String cannot be zeroed: left to the collector). */
    void clear() {
        byTerm.clear();
    }
}
