package dev.vintage.neo4j;

import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.Map;

import org.neo4j.exceptions.KernelException;
import org.neo4j.internal.kernel.api.NodeCursor;
import org.neo4j.internal.kernel.api.PropertyCursor;
import org.neo4j.internal.kernel.api.Read;
import org.neo4j.internal.kernel.api.Write;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.storageengine.api.PropertySelection;
import org.neo4j.values.storable.Value;
import org.neo4j.values.storable.Values;

/**
 * A cascade's closes, written from the node ids the walk holds: as graph/neo4j/cypher.py
 * {@code close_knowledge} and cypher_lineage.py {@code invalidate_facts} would (knowledge:
 * {@code superseded_at} is the fact's end, {@code superseded_recorded_at} the cascade's instant;
 * system: {@code invalidated_at} is the instant), but through the kernel's write API.
 *
 * <p>Each close takes the node's write lock and then reads its guard, as the Cypher path's
 * {@code WHERE ... IS NULL} under {@code LOCKED_READ}: a writer that closed it first has
 * committed by the time the lock is ours.
 */
final class Closes implements AutoCloseable {
    private final KernelTransaction ktx;
    private final Read read;
    private final boolean knowledge;
    private final int endKey;
    private final int recordedKey; // knowledge only
    private final Value now;
    private final Map<Long, Value> ends = new HashMap<>(); // a cascade ends facts at a few
    private final NodeCursor node;
    private final PropertyCursor property;

    Closes(KernelTransaction ktx, String endKey, long at) {
        this.ktx = ktx;
        this.read = ktx.dataRead();
        this.knowledge = endKey.equals("superseded_at");
        try {
            this.endKey = ktx.tokenWrite().propertyKeyGetOrCreateForName(endKey);
            this.recordedKey = knowledge
                    ? ktx.tokenWrite().propertyKeyGetOrCreateForName("superseded_recorded_at") : -1;
        } catch (KernelException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        this.now = datetime(at);
        node = ktx.cursors().allocateNodeCursor(ktx.cursorContext(), ktx.memoryTracker());
        property = ktx.cursors().allocatePropertyCursor(ktx.cursorContext(), ktx.memoryTracker());
    }

    /** Closes one fact at {@code end} (knowledge) or now (system). */
    void close(long fact, long end) {
        try {
            ktx.locks().acquireExclusiveNodeLock(fact);
            if (closed(fact)) {
                if (knowledge) { // the Cypher path counts, and refuses the same
                    throw new IllegalStateException(Cascade.CLOSED_FIRST);
                }
                return; // invalidated already: the Cypher path skips it too
            }
            Write write = ktx.dataWrite();
            if (knowledge) {
                write.nodeSetProperty(fact, endKey, ends.computeIfAbsent(end, Closes::datetime));
                write.nodeSetProperty(fact, recordedKey, now);
            } else {
                write.nodeSetProperty(fact, endKey, now);
            }
        } catch (KernelException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** Whether the fact's end is set, this transaction's writes included. */
    private boolean closed(long fact) {
        read.singleNode(fact, node);
        if (!node.next()) {
            return false;
        }
        node.properties(property, PropertySelection.selection(endKey));
        while (property.next()) {
            if (property.propertyKey() == endKey && !Values.NO_VALUE.equals(property.propertyValue())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        node.close();
        property.close();
    }

    private static Value datetime(long micros) {
        ZonedDateTime t = Instants.utc(micros);
        return Values.of(t);
    }
}
