package dev.vintage.neo4j;

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.collections.impl.list.mutable.primitive.IntArrayList;
import org.eclipse.collections.impl.map.mutable.primitive.LongIntHashMap;
import org.neo4j.internal.kernel.api.NodeCursor;
import org.neo4j.internal.kernel.api.PropertyCursor;
import org.neo4j.internal.kernel.api.Read;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.procedure.TerminationGuard;

/**
 * One tenant's search entries as columns in the heap: what the as-of predicate, the exclusion
 * reasons and the semantic leg read of each fact that has an entry (graph/neo4j/cypher_search.py),
 * so that a ranking round is a loop over arrays instead of a Cypher pass that reads every node
 * again (docs/retrieval.md, "The server-side ranker").
 *
 * <p>Built from the full-text index's tenant token ({@link FullText}) and the kernel's node and
 * property cursors. Immutable once built; {@link RankCache} decides when a set of columns may still be used.
 */
final class Columns {
    private static final String[] KEYS = {
        "tenant", "id", "scope", "available_at", "superseded_at", "superseded_recorded_at",
        "past_superseded_at", "past_superseded_from", "past_superseded_to", "recorded_at",
        "invalidated_at", "gaps_from", "gaps_to", "status", "erased_at", "valid_from", "valid_to",
        "expires_at", "kind", "predicate", "embedding_model", "embedding", "search_terms",
    };

    /** An absent end (open): after every instant. */
    static final long OPEN = Long.MAX_VALUE;

    /** One fact's entry. An absent end is {@link #OPEN}; an absent list of instants null. */
    static final class Entry {
        int ord; // its place in entries
        long node; // its fact's node
        String id;
        String[] scope = new String[0];
        long available;
        long supersededAt;
        long supersededRecordedAt;
        long[] pastAt;
        long[] pastFrom;
        long[] pastTo;
        long recorded;
        long invalidated;
        long[] gapsFrom;
        long[] gapsTo;
        String status;
        boolean erased;
        long validFrom;
        long validTo;
        long expires;
        String kind;
        String predicate;
        String model; // of its vector in Columns#vectors, if it has one
        double norm;
    }

    private static final Entry[] NONE = new Entry[0];
    // What an entry takes at least with a 384-float vector (its vector alone is 1.5 KB).
    private static final long MIN_ENTRY_BYTES = 1_600;

    final Entry[] entries;
    // Each node's entry by its place in entries, in a primitive map: every full-text hit is
    // looked up here (a boxed key per hit was the largest cost of a text leg), and the entry
    // itself is read later, in order (Rank).
    private final LongIntHashMap ordOf;
    private final Map<String, Entry> byId = new HashMap<>();
    // The entries carrying each term of their text (the exact leg's identifiers).
    private final Postings postings;
    final Vectors vectors;
    final long bytes;
    // The entries that carry each scope term, and those with none (the tenant's shared facts):
    // a user's search reads only that user's entries, as Cypher reads only their Lucene hits.
    private final Map<String, Entry[]> byScopeTerm = new HashMap<>();
    private final Entry[] shared;
    private int readers;
    private boolean evicted;

    private Columns(Entry[] entries, LongIntHashMap ordOf, Postings postings, Vectors vectors,
                    long bytes) {
        this.entries = entries;
        this.ordOf = ordOf;
        this.postings = postings;
        this.vectors = vectors;
        this.bytes = bytes;
        Map<String, List<Entry>> terms = new HashMap<>();
        List<Entry> none = new ArrayList<>();
        for (Entry e : entries) {
            byId.put(e.id, e);
            if (e.scope.length == 0) {
                none.add(e);
            }
            for (String term : e.scope) {
                terms.computeIfAbsent(term, t -> new ArrayList<>()).add(e);
            }
        }
        terms.forEach((term, list) -> byScopeTerm.put(term, list.toArray(NONE)));
        shared = none.toArray(NONE);
    }

    /** The entries a read of these scope terms can see, a superset (its predicate decides):
     * the shortest list of one of its terms; the shared ones; or all, tenant-wide. */
    Entry[] within(List<String> scope, boolean sharedOnly) {
        if (sharedOnly) {
            return shared;
        }
        Entry[] narrowest = entries;
        for (String term : scope) {
            Entry[] carrying = byScopeTerm.getOrDefault(term, NONE);
            if (carrying.length < narrowest.length) {
                narrowest = carrying;
            }
        }
        return narrowest;
    }

    /** The places in entries of the entries whose text carries {@code term}, ascending. */
    IntArrayList carrying(String term) {
        return postings.carrying(term);
    }

    /** The entry of the fact with this id; null when it has none here. */
    Entry entry(String id) {
        return byId.get(id);
    }

    /** The place in entries of this node's entry; -1 when it has none here. */
    int ord(long node) {
        return ordOf.getIfAbsent(node, -1);
    }

    /** A search reads these columns until {@link #release}; false once evicted. */
    synchronized boolean acquire() {
        if (evicted) {
            return false;
        }
        readers++;
        return true;
    }

    synchronized void release() {
        if (--readers == 0 && evicted) {
            clear();
        }
    }

    /** No new reader; the text goes once the last one is done (at once if none reads). */
    synchronized void evict() {
        evicted = true;
        if (readers == 0) {
            clear();
        }
    }

    /** Every entry of the tenant that Lucene's tenant token yields and that carries the stamps
     * the predicate needs (the store always writes them; a node without them is never legal
     * on the Cypher path either, and is left out here); null when so many entries could not
     * fit in {@code cap} bytes. */
    static Columns build(KernelTransaction k, String tenant, String tenantToken, long cap,
                         TerminationGuard guard) throws Exception {
        List<Long> nodes = new ArrayList<>();
        FullText.hits(k, '"' + tenantToken + '"', guard, (node, score) -> nodes.add(node));
        if (nodes.size() * MIN_ENTRY_BYTES > cap) {
            return null; // it could not be kept: not even read
        }
        Walk.Keys keys = new Walk.Keys(k.tokenRead(), KEYS);
        Read read = k.dataRead();
        List<Entry> entries = new ArrayList<>(nodes.size());
        LongIntHashMap ordOf = new LongIntHashMap(nodes.size());
        Postings postings = new Postings();
        Vectors.Builder vectors = new Vectors.Builder();
        long bytes = 0;
        try (NodeCursor nc = k.cursors().allocateNodeCursor(k.cursorContext(), k.memoryTracker());
             PropertyCursor pc = k.cursors().allocatePropertyCursor(k.cursorContext(),
                     k.memoryTracker())) {
            Object[] got = new Object[KEYS.length];
            Shared shared = new Shared();
            for (long node : nodes) {
                if ((entries.size() & 1023) == 0) {
                    guard.check();
                }
                read.singleNode(node, nc);
                if (!nc.next()) {
                    continue;
                }
                Arrays.fill(got, null);
                nc.properties(pc, keys.selection);
                while (pc.next()) {
                    int key = pc.propertyKey();
                    for (int i = 0; i < keys.ids.length; i++) {
                        if (keys.ids[i] == key) {
                            got[i] = pc.propertyValue().asObjectCopy();
                            break;
                        }
                    }
                }
                Entry e = entry(tenant, got, shared);
                if (e != null) {
                    e.ord = entries.size();
                    e.node = node;
                    entries.add(e);
                    ordOf.put(node, e.ord);
                    postings.add(e.ord, (String) got[22]);
                    e.norm = Math.sqrt(vectors.add(got[21] instanceof float[] v ? v : null));
                    bytes += 208L + 48L * e.scope.length; // with its place in the map by id
                }
            }
        }
        bytes += postings.done();
        Vectors packed = vectors.done();
        bytes += packed.bytes();
        return new Columns(entries.toArray(new Entry[0]), ordOf, postings, packed, bytes);
    }

    private static Entry entry(String tenant, Object[] p, Shared shared) {
        if (!tenant.equals(p[0]) || p[1] == null || p[3] == null || p[9] == null
                || p[13] == null || p[15] == null || p[22] == null) {
            return null;
        }
        Entry e = new Entry();
        e.id = (String) p[1];
        if (p[2] instanceof String[] scope) {
            e.scope = shared.scope(scope);
        }
        e.available = Instants.micros(p[3]);
        // graph/core/asof.py counts a closure only with both stamps: one alone is no closure.
        e.supersededAt = p[4] == null || p[5] == null ? OPEN : Instants.micros(p[4]);
        e.supersededRecordedAt = e.supersededAt == OPEN ? OPEN : Instants.micros(p[5]);
        e.pastAt = stamps(p[6]);
        e.pastFrom = stamps(p[7]);
        e.pastTo = stamps(p[8]);
        e.recorded = Instants.micros(p[9]);
        e.invalidated = orOpen(p[10]);
        e.gapsFrom = stamps(p[11]);
        e.gapsTo = stamps(p[12]);
        e.status = shared.of((String) p[13]);
        e.erased = p[14] != null;
        e.validFrom = Instants.micros(p[15]);
        e.validTo = orOpen(p[16]);
        e.expires = orOpen(p[17]);
        e.kind = shared.of((String) p[18]);
        e.predicate = shared.of((String) p[19]);
        e.model = shared.of((String) p[20]);
        return e;
    }

    private static long orOpen(Object instant) {
        return instant == null ? OPEN : Instants.micros(instant);
    }

    /** A list of instants; null for none (absent, or an empty list of any element type). */
    private static long[] stamps(Object list) {
        if (list == null || (list.getClass().isArray()
                && java.lang.reflect.Array.getLength(list) == 0)) {
            return null;
        }
        if (!(list instanceof ZonedDateTime[] at)) {
            throw new IllegalStateException("a list of instants stored as "
                    + list.getClass().getSimpleName());
        }
        long[] out = new long[at.length];
        for (int i = 0; i < at.length; i++) {
            out[i] = Instants.micros(at[i]);
        }
        return out;
    }

    /** Drop what the columns hold of each fact's text: the vectors zeroed, the terms let go
     * (a String cannot be zeroed; it is left to the collector). Evicted when a write to the
     * tenant begins, so that an erasure's vector does not outlive its transaction here. */
    private void clear() {
        vectors.clear();
        postings.clear();
        byId.clear();
        ordOf.clear();
    }

}
