package dev.vintage.neo4j;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;

/** A leg's best {@code k} entries of a stream, held in a heap whose head is the worst kept. */
final class Top {
    private record Scored(Columns.Entry entry, double score) {
        String id() {
            return entry.id;
        }
    }

    // Best first: the higher score, then the smaller id (ORDER BY score DESC, id).
    private static final Comparator<Scored> BEST = Comparator
            .comparingDouble(Scored::score).reversed().thenComparing(Scored::id);

    private final int k;
    private final PriorityQueue<Scored> heap = new PriorityQueue<>(BEST.reversed());

    Top(long k) {
        this.k = (int) Math.min(k, Integer.MAX_VALUE - 1);
    }

    void offer(Columns.Entry e, double score) {
        if (heap.size() < k) {
            heap.add(new Scored(e, score));
        } else {
            // BEST's test, before any allocation: most of a pass's entries are turned away.
            Scored worst = heap.peek();
            int c = Double.compare(score, worst.score());
            if (c > 0 || (c == 0 && e.id.compareTo(worst.id()) < 0)) {
                heap.poll();
                heap.add(new Scored(e, score));
            }
        }
    }

    /** Whether it holds {@code k} entries: an entry below the worst is turned away. */
    boolean full() {
        return heap.size() >= k;
    }

    /** The worst score kept (the heap's head); only asked of a full heap. */
    double worst() {
        return heap.peek().score();
    }

    Set<Columns.Entry> entries() {
        Set<Columns.Entry> out = Collections.newSetFromMap(new IdentityHashMap<>());
        heap.forEach(s -> out.add(s.entry()));
        return out;
    }

    /** The kept entries best first, as rows of id and score (a count when integral). */
    List<List<Object>> best(boolean integral) {
        List<Scored> out = new ArrayList<>(heap);
        out.sort(BEST);
        List<List<Object>> rows = new ArrayList<>(out.size());
        for (Scored s : out) {
            rows.add(List.of(s.id(), integral ? (Object) (long) s.score() : s.score()));
        }
        return rows;
    }
}
