package dev.vintage.neo4j;

import java.io.IOException;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * tests/golden/rank_cases.json, written by tests/test_rank_twins.py from the Python builders:
 * the writes that lay down a seeded corpus, and for each seeded read the ranking round the
 * store sends a server with the plugin and the one it sends without it, with what Python
 * alone decides (the legal set's size, the items not legal).
 *
 * <p>Parameters come back as the Python driver sends them: whole numbers as longs, the others
 * as doubles, an instant (marked {@code {"$datetime": iso}} in the file) as a
 * {@link ZonedDateTime}.
 */
final class RankCases {
    /** A statement and its parameters. */
    record Query(String text, Map<String, Object> params) {
        /** The same statement with some parameters replaced. */
        Query with(Map<String, Object> replaced) {
            Map<String, Object> p = new HashMap<>(params);
            p.putAll(replaced);
            return new Query(text, p);
        }
    }

    /** One read: its two rounds, the rounds by id of its cut legs, Python's decisions. */
    record Case(String name, Query plugin, Query cypher, Map<String, Query> rescore, long legal,
                List<String> illegal) {
        boolean counted() {
            return Boolean.TRUE.equals(((Map<?, ?>) plugin.params().get("request"))
                    .get("counted"));
        }
    }

    final String tenant;
    final List<Query> schema = new ArrayList<>();
    final List<Query> setup = new ArrayList<>();
    final Query columns;
    final long entries; // the tenant's facts with an entry
    final List<Case> cases = new ArrayList<>();

    private RankCases(JsonNode body) {
        List<String> texts = new ArrayList<>();
        body.get("texts").forEach(t -> texts.add(t.asText()));
        tenant = body.get("tenant").asText();
        body.get("schema").forEach(q -> schema.add(query(q, texts)));
        body.get("setup").forEach(q -> setup.add(query(q, texts)));
        columns = query(body.get("columns"), texts);
        entries = body.get("entries").asLong();
        for (JsonNode c : body.get("cases")) {
            Map<String, Query> rescore = new LinkedHashMap<>();
            c.get("rescore").properties().forEach(e -> rescore.put(e.getKey(),
                    query(e.getValue(), texts)));
            List<String> illegal = new ArrayList<>();
            c.get("illegal").forEach(i -> illegal.add(i.asText()));
            cases.add(new Case(c.get("name").asText(), query(c.get("plugin"), texts),
                    query(c.get("cypher"), texts), rescore, c.get("legal").asLong(), illegal));
        }
    }

    static RankCases read() throws IOException {
        Path golden = Path.of(System.getProperty("vintage.golden"), "rank_cases.json");
        return new RankCases(new ObjectMapper().readTree(golden.toFile()));
    }

    /** A statement of a case file (its text by index into {@code texts}); CascadeTest reads
     * tests/golden/cascade_cases.json, written the same way, with it. */
    static Query query(JsonNode q, List<String> texts) {
        @SuppressWarnings("unchecked")
        Map<String, Object> params = (Map<String, Object>) value(q.get("params"));
        return new Query(texts.get(q.get("text").asInt()), params);
    }

    static Object value(JsonNode v) {
        if (v.isNull()) {
            return null;
        }
        if (v.isBoolean()) {
            return v.asBoolean();
        }
        if (v.isIntegralNumber()) {
            return v.asLong();
        }
        if (v.isNumber()) {
            return v.asDouble();
        }
        if (v.isTextual()) {
            return v.asText();
        }
        if (v.isArray()) {
            List<Object> list = new ArrayList<>();
            v.forEach(x -> list.add(value(x)));
            return list;
        }
        if (v.has("$datetime")) {
            return ZonedDateTime.parse(v.get("$datetime").asText());
        }
        Map<String, Object> map = new HashMap<>();
        v.properties().forEach(e -> map.put(e.getKey(), value(e.getValue())));
        return map;
    }
}
