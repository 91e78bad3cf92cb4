package io.sessionrep.testservlet;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class JsonFieldsTest {

    @Test
    void readsWhatJsonWriterWrites() {
        String json = JsonWriter.object()
                .field("node", "node-a")
                .field("quote", "say \"hi\"\\ \n\t\u0001")
                .field("version", 12)
                .field("bytes", 10240L)
                .field("missing", (String) null)
                .toString();

        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("node", "node-a");
        expected.put("quote", "say \"hi\"\\ \n\t\u0001");
        expected.put("version", "12");
        expected.put("bytes", "10240");
        expected.put("missing", null);
        assertEquals(expected, JsonFields.parse(json));
    }

    @Test
    void toleratesWhitespaceAndEmptyObjects() {
        assertEquals(Map.of("a", "1"), JsonFields.parse(" { \"a\" : 1 }\n"));
        assertEquals(Map.of(), JsonFields.parse("{}"));
    }

    @Test
    void refusesWhatItDoesNotRead() {
        assertThrows(IllegalArgumentException.class, () -> JsonFields.parse("{\"a\":{\"b\":1}}"));
        assertThrows(IllegalArgumentException.class, () -> JsonFields.parse("{\"a\":1"));
        assertThrows(IllegalArgumentException.class, () -> JsonFields.parse("<html>"));
        assertThrows(IllegalArgumentException.class, () -> JsonFields.parse("{\"a\":1} x"));
    }
}
