package dev.vintage.neo4j;

import java.util.concurrent.atomic.AtomicLong;

import org.neo4j.internal.kernel.api.IndexQueryConstraints;
import org.neo4j.internal.kernel.api.IndexReadSession;
import org.neo4j.internal.kernel.api.NodeValueIndexCursor;
import org.neo4j.internal.kernel.api.PropertyIndexQuery;
import org.neo4j.internal.schema.IndexDescriptor;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.procedure.TerminationGuard;

/**
 * The search entries' full-text index (graph/neo4j/schema.py FACT_TEXT), as the ranker reads
 * it: each node a query matches, with its BM25 score, in no particular order. From Lucene
 * itself where {@link TextPass} can serve the read, else through the kernel's cursor; the two
 * give the same hits and scores.
 */
final class FullText {
    static final String INDEX = "vintage_fact_text";

    /** Reads since the server started, each way (vintage.text_passes). */
    static final AtomicLong DIRECT = new AtomicLong();
    static final AtomicLong KERNEL = new AtomicLong();

    // Why Lucene cannot be read directly on this server, once known (a part of Neo4j's reader
    // missing or changed): then every read takes the kernel's cursor.
    private static volatile String unavailable = said(probe());

    interface Hit {
        void accept(long node, float score);
    }

    private FullText() {
    }

    /** Why this server reads through the kernel's cursor only, or null. */
    static String unavailable() {
        return unavailable;
    }

    static void hits(KernelTransaction k, String lucene, TerminationGuard guard, Hit each)
            throws Exception {
        guard.check();
        IndexDescriptor index = k.schemaRead().indexGetForName(INDEX);
        IndexReadSession session = k.dataRead().indexReadSession(index);
        if (direct(k, index, session, lucene, guard, each)) {
            DIRECT.incrementAndGet();
            return;
        }
        KERNEL.incrementAndGet();
        try (NodeValueIndexCursor c = k.cursors().allocateNodeValueIndexCursor(
                k.cursorContext(), k.memoryTracker())) {
            k.dataRead().nodeIndexSeek(k.queryContext(), session, c,
                    IndexQueryConstraints.unconstrained(), PropertyIndexQuery.fulltextSearch(lucene));
            int n = 0;
            while (c.next()) {
                if ((++n & 4095) == 0) {
                    guard.check();
                }
                each.accept(c.nodeReference(), c.score());
            }
        }
    }

    private static String probe() {
        try {
            return TextPass.unavailable();
        } catch (LinkageError e) {
            return e.toString();
        }
    }

    private static String said(String why) {
        if (why != null) {
            System.err.println("vintage: full-text reads go through the kernel's cursor: " + why);
        }
        return why;
    }

    private static boolean direct(KernelTransaction k, IndexDescriptor index,
                                  IndexReadSession session, String lucene, TerminationGuard guard,
                                  Hit each) throws Exception {
        if (unavailable != null) {
            return false;
        }
        try {
            return TextPass.hits(k, index, session, lucene, guard, each);
        } catch (LinkageError e) { // a class of Neo4j's reader gone: before any hit was read
            unavailable = said(e.toString());
            return false;
        }
    }
}
