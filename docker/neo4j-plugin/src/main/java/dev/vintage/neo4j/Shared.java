package dev.vintage.neo4j;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One instance of each status, kind, predicate, model and scope the entries repeat: a
 * ranking round tests them on every entry, and tens of thousands of copies, each in its
 * own cache line, made those tests wait on memory (a third of a round's time).
 */
final class Shared {
    private final Map<String, String> strings = new HashMap<>();
    private final Map<List<String>, String[]> scopes = new HashMap<>();

    String of(String s) {
        return s == null ? null : strings.computeIfAbsent(s, x -> x);
    }

    String[] scope(String[] terms) {
        String[] own = new String[terms.length];
        for (int i = 0; i < terms.length; i++) {
            own[i] = of(terms[i]);
        }
        return scopes.computeIfAbsent(List.of(own), x -> own);
    }
}
