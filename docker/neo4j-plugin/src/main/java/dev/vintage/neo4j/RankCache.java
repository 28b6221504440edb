package dev.vintage.neo4j;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.neo4j.procedure.TerminationGuard;

/**
 * When a tenant's {@link Columns} may be used: never while a write to the tenant is open, and
 * never across one.
 *
 * <p>No transaction listener: registering one makes Neo4j build every transaction's change
 * set, 0.9 s more on the 110k cascade (bench/RESULTS.md). Instead each write transaction of
 * the store says which tenant it writes ({@code vintage.search_write}, graph/neo4j/tx.py) as
 * its first statement: the tenant's columns are evicted there and then, and none are installed
 * again until that kernel transaction is closed, which it is only once its commit is applied
 * (or it rolled back). A build that saw a write begin is used by no one. So a search ranks
 * from columns only when no write to its tenant began since they were read, and an erased
 * vector is gone from them before its erasure commits. A write that bypasses the store (raw
 * Cypher on a fact) is not seen: the contract is that the store owns its graph
 * (docs/retrieval.md, "The server-side ranker").
 *
 * <p>Builds run on one background thread in their own read transaction: a search that finds
 * no columns ranks in Cypher as before and never waits for a build.
 */
final class RankCache {
    private RankCache() {}

    private static final TerminationGuard UNGUARDED = () -> { };
    private static final Map<String, State> TENANTS = new ConcurrentHashMap<>();
    private static final ExecutorService BUILDER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "vintage-rank-columns");
        t.setDaemon(true);
        return t;
    });

    /** The heap the columns of every tenant may take together (vintage.rank.cache.bytes;
     * a quarter of the heap by default). A tenant larger than that is ranked in Cypher. */
    static final long CAP = Long.getLong("vintage.rank.cache.bytes",
            Runtime.getRuntime().maxMemory() / 4);

    /** A write transaction, known by its kernel transaction and that object's sequence
     * number (the kernel reuses the object for later transactions). */
    private record Writer(KernelTransaction tx, long sequence) {
        boolean done() {
            return tx.getTransactionSequenceNumber() != sequence
                    || (!tx.isOpen() && !tx.isClosing());
        }
    }

    private static final class State {
        Columns columns;
        long epoch; // one more at each write begun
        long used; // System.nanoTime() of the last search served
        long tooLarge = -1; // the epoch whose build did not fit
        boolean building;
        final List<Writer> writers = new ArrayList<>();
    }

    private static State state(String tenant) {
        return TENANTS.computeIfAbsent(tenant, t -> new State());
    }

    /** A write to the tenant begins in {@code tx}. */
    static void writing(String tenant, KernelTransaction tx) {
        State s = state(tenant);
        Columns old;
        synchronized (s) {
            s.epoch++;
            s.writers.add(new Writer(tx, tx.getTransactionSequenceNumber()));
            old = s.columns;
            s.columns = null;
        }
        if (old != null) {
            old.evict();
        }
    }

    /** The tenant's columns, acquired (release them), or null: then the caller ranks in
     * Cypher, and a build starts if none is running and no write is open. */
    static Columns acquire(String tenant, String token, GraphDatabaseService db) {
        State s = state(tenant);
        synchronized (s) {
            s.writers.removeIf(Writer::done);
            if (s.columns != null && s.columns.acquire()) {
                s.used = System.nanoTime();
                return s.columns;
            }
            if (!s.building && s.writers.isEmpty() && s.tooLarge != s.epoch) {
                s.building = true;
                long epoch = s.epoch;
                BUILDER.execute(() -> buildInBackground(s, tenant, token, epoch, db));
            }
            return null;
        }
    }

    /** Build the tenant's columns now, in {@code tx}, and install them if nothing wrote
     * meanwhile; how many entries they hold, or -1 if they were not installed. */
    static long buildNow(String tenant, String token, KernelTransaction tx, TerminationGuard guard)
            throws Exception {
        State s = state(tenant);
        long epoch;
        synchronized (s) {
            s.writers.removeIf(Writer::done);
            if (!s.writers.isEmpty()) {
                return -1;
            }
            epoch = s.epoch;
        }
        Columns built = Columns.build(tx, tenant, token, CAP, guard);
        return install(s, built, epoch) ? built.entries.length : -1;
    }

    private static void buildInBackground(State s, String tenant, String token, long epoch,
                                          GraphDatabaseService db) {
        Columns built;
        try (Transaction tx = db.beginTx()) {
            built = Columns.build(((InternalTransaction) tx).kernelTransaction(), tenant, token,
                    CAP, UNGUARDED);
        } catch (Exception | LinkageError e) {
            // The search that asked ranks in Cypher; the next one tries again.
            System.err.println("vintage-neo4j: building the columns of a tenant failed: " + e);
            return;
        } finally {
            synchronized (s) {
                s.building = false;
            }
        }
        install(s, built, epoch);
    }

    /** Keep {@code built} (null: too large) as the tenant's columns if no write to it began
     * since {@code epoch} and none is open; whether they were kept. */
    private static boolean install(State s, Columns built, long epoch) {
        synchronized (s) {
            if (built == null) {
                s.tooLarge = epoch;
                return false;
            }
            s.writers.removeIf(Writer::done);
            if (s.epoch != epoch || !s.writers.isEmpty()) {
                built.evict();
                return false;
            }
            if (built.bytes > CAP) {
                s.tooLarge = epoch;
                built.evict();
                return false;
            }
            if (s.columns != null) {
                s.columns.evict();
            }
            s.columns = built;
            s.used = System.nanoTime();
        }
        makeRoom(s);
        return true;
    }

    /** Evict the least recently used other tenants until every tenant's columns fit. */
    private static void makeRoom(State keep) {
        while (true) {
            long total = 0;
            State oldest = null;
            for (State s : TENANTS.values()) {
                synchronized (s) {
                    if (s.columns == null) {
                        continue;
                    }
                    total += s.columns.bytes;
                    if (s != keep && (oldest == null || s.used < oldest.used)) {
                        oldest = s;
                    }
                }
            }
            if (total <= CAP || oldest == null) {
                return;
            }
            synchronized (oldest) {
                if (oldest.columns != null) {
                    oldest.columns.evict();
                    oldest.columns = null;
                }
            }
        }
    }
}
