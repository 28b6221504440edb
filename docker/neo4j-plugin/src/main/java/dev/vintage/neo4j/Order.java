package dev.vintage.neo4j;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The cascade's decision on ids alone, no database in sight: graph/writes/cascade.py's
 * {@code justified_until}, {@code _topological} and {@code _paths}, with their tie-breaks, so
 * that the procedure lists a cascade as the reference does.
 *
 * <p>Lists, sorted where the order is read, rather than a sorted set per fact. (A JFR profile
 * put a fifth of a 110k cascade's samples in the sorted-set version of these; timed against it,
 * the procedure took the same wall-clock time: median 2.26 s against 2.27 s of seven runs. The
 * walk and the page cache bound it, bench/RESULTS.md.)
 */
final class Order {
    private Order() {}

    /** A reached fact's live justifications: per derivation (by id), its live input ids, sorted
     * and distinct. The two lists are parallel. */
    record Justified(List<String> derivations, List<List<String>> inputs) {}

    /** graph/writes/cascade.py justified_until; null is "open". */
    static Long justifiedUntil(List<List<String>> justifications, Map<String, Long> ends,
                               Map<String, Long> stored) {
        Long latest = null;
        for (List<String> inputs : justifications) {
            Long first = null;
            for (String i : inputs) {
                Long end = ends.containsKey(i) ? ends.get(i) : stored.get(i);
                if (end != null && (first == null || end < first)) {
                    first = end;
                }
            }
            if (first == null) {
                return null; // every input of this justification holds: so does the fact
            }
            latest = latest == null || first > latest ? first : latest;
        }
        return latest;
    }

    /** graph/writes/cascade.py _topological: graphlib's static_order over the same graph, whose
     * nodes are inserted fact by fact in id order, each fact's predecessors after it, sorted. */
    static List<String> topological(Map<String, Justified> reached, String cycle) {
        List<String> ids = new ArrayList<>(reached.keySet());
        Collections.sort(ids);
        LinkedHashMap<String, int[]> predecessors = new LinkedHashMap<>(ids.size() * 2);
        Map<String, List<String>> successors = new HashMap<>(ids.size() * 2);
        for (String fid : ids) {
            List<String> preds = within(reached.get(fid).inputs(), reached);
            predecessors.computeIfAbsent(fid, k -> new int[1])[0] += preds.size();
            for (String p : preds) {
                predecessors.computeIfAbsent(p, k -> new int[1]);
                successors.computeIfAbsent(p, k -> new ArrayList<>(1)).add(fid);
            }
        }
        List<String> order = new ArrayList<>(predecessors.size());
        List<String> ready = new ArrayList<>();
        predecessors.forEach((node, n) -> {
            if (n[0] == 0) {
                ready.add(node);
            }
        });
        while (!ready.isEmpty()) {
            List<String> group = new ArrayList<>(ready);
            ready.clear();
            order.addAll(group);
            for (String node : group) {
                for (String s : successors.getOrDefault(node, List.of())) {
                    if (--predecessors.get(s)[0] == 0) {
                        ready.add(s);
                    }
                }
            }
        }
        if (order.size() != predecessors.size()) { // graphlib raises CycleError: so do we
            throw new IllegalStateException(cycle);
        }
        return order;
    }

    /** The inputs of these justifications that were reached, sorted and distinct. */
    private static List<String> within(List<List<String>> justifications,
                                       Map<String, Justified> reached) {
        if (justifications.size() == 1) { // the common case: one justification, sorted already
            List<String> preds = new ArrayList<>(1);
            for (String i : justifications.get(0)) {
                if (reached.containsKey(i)) {
                    preds.add(i);
                }
            }
            return preds;
        }
        TreeSet<String> preds = new TreeSet<>();
        for (List<String> ids : justifications) {
            for (String i : ids) {
                if (reached.containsKey(i)) {
                    preds.add(i);
                }
            }
        }
        return new ArrayList<>(preds);
    }

    /** graph/writes/cascade.py _paths: shortest fact-to-fact path from a change to each reached fact
     * (ties: the smallest derivation id, then the smallest output id). */
    static Map<String, List<String>> paths(Map<String, Justified> reached, List<String> starts) {
        Map<String, List<String>> fed = new HashMap<>(); // input fact -> derivations using it
        Map<String, List<String>> made = new HashMap<>(); // derivation -> facts it generated
        reached.forEach((fid, r) -> {
            for (int k = 0; k < r.derivations().size(); k++) {
                String did = r.derivations().get(k);
                made.computeIfAbsent(did, x -> new ArrayList<>(1)).add(fid);
                for (String i : r.inputs().get(k)) {
                    fed.computeIfAbsent(i, x -> new ArrayList<>(1)).add(did);
                }
            }
        });
        made.values().forEach(Collections::sort); // distinct: a fact is reached once
        Map<String, List<String>> paths = new HashMap<>(reached.size() * 2);
        ArrayDeque<String> frontier = new ArrayDeque<>(starts);
        for (String s : starts) {
            paths.put(s, List.of(s));
        }
        while (!frontier.isEmpty()) {
            ArrayDeque<String> next = new ArrayDeque<>();
            for (String fid : frontier) {
                List<String> uses = fed.getOrDefault(fid, List.of());
                for (String d : distinct(uses)) {
                    for (String out : made.get(d)) {
                        if (!paths.containsKey(out)) {
                            List<String> path = new ArrayList<>(paths.get(fid));
                            path.add(out);
                            paths.put(out, path);
                            next.add(out);
                        }
                    }
                }
            }
            frontier = next;
        }
        return paths;
    }

    /** Sorted, each once: a derivation that generated two facts is fed by each input twice. */
    private static List<String> distinct(List<String> ids) {
        if (ids.size() < 2) {
            return ids;
        }
        List<String> sorted = new ArrayList<>(ids);
        Collections.sort(sorted);
        List<String> once = new ArrayList<>(sorted.size());
        for (String id : sorted) {
            if (once.isEmpty() || !once.get(once.size() - 1).equals(id)) {
                once.add(id);
            }
        }
        return once;
    }
}
