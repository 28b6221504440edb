package dev.vintage.neo4j;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/**
 * Instants as the procedure compares them: integer microseconds since the epoch, as the Cypher
 * path returns them (graph/neo4j/params.py); null is "open".
 */
final class Instants {
    private Instants() {}

    /** graph/core/asof.py holds_at over an edge's stamps: recorded by then, not yet invalidated,
     * not in a gap. */
    static boolean holds(Object recordedAt, Object invalidatedAt, Object gapsFrom, Object gapsTo,
                         long at) {
        Long recorded = micros(recordedAt);
        if (recorded == null || recorded > at) {
            return false;
        }
        Long invalidated = micros(invalidatedAt);
        if (invalidated != null && at >= invalidated) {
            return false;
        }
        if (!empty(gapsFrom) || !empty(gapsTo)) {
            if (!(gapsFrom instanceof ZonedDateTime[] starts)
                    || !(gapsTo instanceof ZonedDateTime[] stops)
                    || starts.length != stops.length) {
                throw new IllegalStateException("gaps_from and gaps_to do not pair up");
            }
            for (int i = 0; i < starts.length; i++) {
                if (micros(starts[i]) <= at && at < micros(stops[i])) {
                    return false;
                }
            }
        }
        return true;
    }

    /** No gaps: absent, or an empty list (which Neo4j may hand back typed as any array). */
    private static boolean empty(Object list) {
        return list == null
                || (list.getClass().isArray() && java.lang.reflect.Array.getLength(list) == 0);
    }

    static Long micros(Object instant) {
        if (instant == null) {
            return null;
        }
        if (instant instanceof ZonedDateTime t) {
            return t.toEpochSecond() * 1_000_000L + t.getNano() / 1_000;
        }
        // Cypher would compare such a value as null and decide otherwise: refuse, not guess.
        throw new IllegalStateException("an instant stored as " + instant.getClass().getSimpleName());
    }

    /** An instant as the Cypher path stores one (a UTC offset, not a zone name). */
    static ZonedDateTime utc(long micros) {
        Instant at = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                Math.floorMod(micros, 1_000_000L) * 1_000L);
        return ZonedDateTime.ofInstant(at, ZoneOffset.UTC);
    }
}
