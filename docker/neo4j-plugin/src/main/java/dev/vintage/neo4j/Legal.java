package dev.vintage.neo4j;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The as-of predicate and its exclusion reasons over a {@link Columns.Entry}: the third spelling
 * of graph/core/asof.py {@code to_cypher} and graph/core/exclusion.py {@code why_excluded} /
 * {@code reason_cypher}, with their order of reasons and their strings. The Neo4j tier runs
 * every search both ways and holds this one to the Cypher one
 * (tests/test_neo4j_ranker.py).
 *
 * <p>A read that names subjects never reaches it: it ranks in Cypher, where the subjects' index
 * is the narrower way in (graph/neo4j/ranker.py).
 */
final class Legal {
    static final String SCOPE = "outside the scope";
    static final String ERASED = "erased";
    static final String SYSTEM = "not held at the system instant";
    static final String NOT_PUBLIC = "not yet public at the cutoff";
    static final String SUPERSEDED = "superseded by the cutoff";
    static final String VALID = "outside the valid time";
    static final String EXPIRED = "expired";
    static final String STATUS = "status not admitted";
    static final String KIND = "another kind";
    static final String PREDICATE = "another predicate";
    static final String ID = "not among the ids";

    final List<String> scope;
    final boolean sharedOnly;
    private final long known;
    private final long system;
    // A few statuses, scanned: a set's lookup hashed the entry's status on every test.
    private final String[] statuses;
    private final long unexpired; // Long.MIN_VALUE: none (no expiry is at or before it)
    private final boolean instant;
    private final long validAt;
    private final long validStart; // Long.MIN_VALUE: unbounded
    private final long validEnd; // Columns.OPEN: unbounded
    private final Set<String> kinds;
    private final Set<String> predicates;
    private final Set<String> ids;

    @SuppressWarnings("unchecked")
    Legal(Map<String, Object> r) {
        scope = (List<String>) r.get("scope");
        sharedOnly = Boolean.TRUE.equals(r.get("shared_only"));
        known = (Long) r.get("known");
        system = (Long) r.get("system");
        statuses = ((List<String>) r.get("statuses")).toArray(new String[0]);
        unexpired = orElse(r.get("unexpired"), Long.MIN_VALUE);
        instant = r.get("valid_at") != null;
        validAt = orElse(r.get("valid_at"), 0L);
        validStart = orElse(r.get("valid_start"), Long.MIN_VALUE);
        validEnd = orElse(r.get("valid_end"), Columns.OPEN);
        kinds = set(r.get("kinds"));
        predicates = set(r.get("predicates"));
        ids = set(r.get("ids"));
    }

    private static boolean among(String[] values, String value) {
        for (String v : values) {
            if (v.equals(value)) {
                return true;
            }
        }
        return false;
    }

    private static long orElse(Object micros, long none) {
        return micros == null ? none : (Long) micros;
    }

    @SuppressWarnings("unchecked")
    private static Set<String> set(Object list) {
        return list == null ? null : new HashSet<>((List<String>) list);
    }

    /** graph/core/asof.py scope_test: the entry carries every term the read names (none at all
     * for a read of shared facts). */
    boolean inScope(Columns.Entry e) {
        if (sharedOnly) {
            return e.scope.length == 0;
        }
        for (String term : scope) {
            boolean found = false;
            for (String has : e.scope) {
                if (has.equals(term)) {
                    found = true;
                    break;
                }
            }
            if (!found) {
                return false;
            }
        }
        return true;
    }

    /** The first reason the entry is not visible, or null: it is. */
    String reason(Columns.Entry e) {
        return inScope(e) ? reasonInScope(e) : SCOPE;
    }

    /** {@link #reason} of an entry already found in scope (a text hit: its scope is tested
     * first, since one beyond it is not even counted). */
    String reasonInScope(Columns.Entry e) {
        if (e.erased) {
            return ERASED;
        }
        if (kinds != null && !kinds.contains(e.kind)) {
            return KIND;
        }
        if (predicates != null && !predicates.contains(e.predicate)) {
            return PREDICATE;
        }
        if (e.recorded > system || system >= e.invalidated || inGap(e.gapsFrom, e.gapsTo)) {
            return SYSTEM;
        }
        if (e.available > known) {
            return NOT_PUBLIC;
        }
        boolean closed = e.supersededRecordedAt <= system && e.supersededAt <= known;
        if (closed || pastClosed(e)) {
            return SUPERSEDED;
        }
        if (!overlaps(e.validFrom, e.validTo)) {
            return VALID;
        }
        if (e.expires != Columns.OPEN && (!overlaps(e.validFrom, e.expires)
                || e.expires <= unexpired)) {
            return EXPIRED;
        }
        if (!among(statuses, e.status)) {
            return STATUS;
        }
        if (ids != null && !ids.contains(e.id)) {
            return ID;
        }
        return null;
    }

    /** graph/core/temporal.py Interval.overlaps of the read's valid window with [start, end), an
     * open end being {@link Columns#OPEN}. */
    private boolean overlaps(long start, long end) {
        if (instant) {
            return start <= validAt && validAt < end;
        }
        return start < validEnd && validStart < end;
    }

    /** graph/core/asof.py past_closed. */
    private boolean pastClosed(Columns.Entry e) {
        if (e.pastAt == null) {
            return false;
        }
        for (int i = 0; i < e.pastAt.length; i++) {
            if (e.pastFrom[i] <= system && system < e.pastTo[i] && e.pastAt[i] <= known) {
                return true;
            }
        }
        return false;
    }

    private boolean inGap(long[] from, long[] to) {
        if (from == null) {
            return false;
        }
        for (int i = 0; i < from.length; i++) {
            if (from[i] <= system && system < to[i]) {
                return true;
            }
        }
        return false;
    }
}
