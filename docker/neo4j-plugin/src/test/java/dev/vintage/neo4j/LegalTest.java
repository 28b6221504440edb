package dev.vintage.neo4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * {@link Legal} gives each fact the first reason Python's {@code exclusion.why_excluded} gives.
 *
 * <p>The cases are tests/golden/legal_reasons.tsv, written by tests/test_legal_twins.py from
 * seeded random facts and reads with instants a few days apart (boundaries tie often): the
 * request exactly as the Python side sends it ({@code ranker._legal}), the fact's columns as
 * {@link Columns} reads them from the store, and the reason. The Python test holds the file to
 * {@code why_excluded}; this one holds {@link Legal} to the file, so the two spellings cannot part
 * without one of the two builds failing.
 */
class LegalTest {
    private static final String NULL = "~";

    @Test
    void everyFactGetsTheReasonPythonGivesIt() throws IOException {
        Path golden = Path.of(System.getProperty("vintage.golden"), "legal_reasons.tsv");
        List<String> lines = Files.readAllLines(golden, StandardCharsets.UTF_8);
        List<String> header = Arrays.asList(lines.get(0).split("\t", -1));
        List<String> parted = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split("\t", -1);
            Map<String, String> row = new HashMap<>();
            for (int i = 0; i < header.size(); i++) {
                row.put(header.get(i), cells[i]);
            }
            String got = new Legal(request(row)).reason(entry(row));
            String want = row.get("reason").isEmpty() ? null : row.get("reason");
            if (want == null ? got != null : !want.equals(got)) {
                parted.add(row.get("id") + ": Python " + want + ", Java " + got);
            }
        }
        assertTrue(lines.size() > 500, "the cases file holds " + lines.size() + " lines");
        assertEquals(List.of(), parted.subList(0, Math.min(10, parted.size())),
                parted.size() + " of " + (lines.size() - 1) + " cases part (the first ten shown)");
    }

    /** The request map as the driver hands it to the procedure: longs, lists, booleans. */
    private static Map<String, Object> request(Map<String, String> row) {
        Map<String, Object> r = new HashMap<>();
        r.put("scope", strings(row.get("scope")));
        r.put("shared_only", Boolean.parseBoolean(row.get("shared_only")));
        for (String instant : List.of("known", "system", "unexpired", "valid_at", "valid_start",
                "valid_end")) {
            r.put(instant, micros(row.get(instant)));
        }
        r.put("statuses", strings(row.get("statuses")));
        for (String names : List.of("kinds", "predicates", "ids")) {
            r.put(names, strings(row.get(names)));
        }
        return r;
    }

    /** The entry as {@code Columns.entry} builds it from a fact's properties. */
    private static Columns.Entry entry(Map<String, String> row) {
        Columns.Entry e = new Columns.Entry();
        e.id = row.get("id");
        e.scope = strings(row.get("fact_scope")).toArray(new String[0]);
        e.available = micros(row.get("available"));
        Long at = micros(row.get("superseded_at"));
        Long recordedAt = micros(row.get("superseded_recorded_at"));
        // A closure counts only with both stamps, as Columns reads it.
        e.supersededAt = at == null || recordedAt == null ? Columns.OPEN : at;
        e.supersededRecordedAt = e.supersededAt == Columns.OPEN ? Columns.OPEN : recordedAt;
        e.pastAt = stamps(row.get("past_at"));
        e.pastFrom = stamps(row.get("past_from"));
        e.pastTo = stamps(row.get("past_to"));
        e.recorded = micros(row.get("recorded"));
        e.invalidated = orOpen(row.get("invalidated"));
        e.gapsFrom = stamps(row.get("gaps_from"));
        e.gapsTo = stamps(row.get("gaps_to"));
        e.status = row.get("status");
        e.erased = Boolean.parseBoolean(row.get("erased"));
        e.validFrom = micros(row.get("valid_from"));
        e.validTo = orOpen(row.get("valid_to"));
        e.expires = orOpen(row.get("expires"));
        e.kind = row.get("kind");
        e.predicate = row.get("predicate");
        return e;
    }

    private static Long micros(String cell) {
        return NULL.equals(cell) ? null : Long.valueOf(cell);
    }

    private static long orOpen(String cell) {
        return NULL.equals(cell) ? Columns.OPEN : Long.parseLong(cell);
    }

    private static List<String> strings(String cell) {
        if (NULL.equals(cell)) {
            return null;
        }
        return cell.isEmpty() ? List.of() : List.of(cell.split(",", -1));
    }

    /** Columns keeps an empty list of instants as null. */
    private static long[] stamps(String cell) {
        if (cell.isEmpty()) {
            return null;
        }
        return Arrays.stream(cell.split(",", -1)).mapToLong(Long::parseLong).toArray();
    }
}
