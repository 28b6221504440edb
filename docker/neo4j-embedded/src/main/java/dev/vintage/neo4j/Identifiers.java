package dev.vintage.neo4j;

import java.util.Arrays;
import java.util.List;

/** The query's identifiers, as the exact leg counts them on an entry's terms. */
final class Identifiers {
    private final String[] spaced;
    private final int[] hashes;

    Identifiers(List<String> identifiers) {
        spaced = new String[identifiers.size()];
        hashes = new int[identifiers.size()];
        for (int i = 0; i < spaced.length; i++) {
            spaced[i] = ' ' + identifiers.get(i);
            hashes[i] = identifiers.get(i).hashCode();
        }
    }

    boolean none() {
        return spaced.length == 0;
    }

    /** How many it carries: {@code (terms + ' ') CONTAINS (' ' + i + ' ')} for each, the
     * entry's term hashes ruling most out first. */
    int carried(Columns.Entry e) {
        int n = 0;
        for (int i = 0; i < spaced.length; i++) {
            if (Arrays.binarySearch(e.termHashes, hashes[i]) >= 0
                    && carries(e.terms, spaced[i])) {
                n++;
            }
        }
        return n;
    }

    private static boolean carries(String terms, String spaced) {
        for (int at = terms.indexOf(spaced); at >= 0; at = terms.indexOf(spaced, at + 1)) {
            int end = at + spaced.length();
            if (end == terms.length() || terms.charAt(end) == ' ') {
                return true;
            }
        }
        return false;
    }
}
