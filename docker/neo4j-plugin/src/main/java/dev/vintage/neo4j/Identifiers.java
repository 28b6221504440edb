package dev.vintage.neo4j;

import java.util.List;

/** The query's identifiers, as the exact leg counts them: how many of them each entry's terms
 * carry ({@code (terms + ' ') CONTAINS (' ' + i + ' ')}, graph/neo4j/cypher_search.py), from
 * the columns' postings, so that no entry is read for it. */
final class Identifiers {
    private final int[] counts; // by place in the columns' entries; null: no identifiers

    Identifiers(List<String> identifiers, Columns columns) {
        if (identifiers.isEmpty()) {
            counts = null;
            return;
        }
        counts = new int[columns.entries.length];
        for (String i : identifiers) {
            if (i.isEmpty() || i.indexOf(' ') >= 0) { // a postings list holds one whole term
                throw new IllegalArgumentException("an identifier is one term without spaces");
            }
            columns.carrying(i).forEach(ord -> counts[ord]++);
        }
    }

    boolean none() {
        return counts == null;
    }

    /** How many it carries. */
    int carried(Columns.Entry e) {
        return counts[e.ord];
    }
}
