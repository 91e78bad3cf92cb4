package io.sessionrep.testservlet;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads one flat JSON object (what {@link JsonWriter} writes): field name to the value's text, strings
 * unescaped, numbers and booleans as written, {@code null} as a Java null. Nested values are refused.
 */
public final class JsonFields {

    private final String text;
    private int pos;

    private JsonFields(String text) {
        this.text = text;
    }

    public static Map<String, String> parse(String json) {
        return new JsonFields(json).object();
    }

    private Map<String, String> object() {
        Map<String, String> fields = new LinkedHashMap<>();
        expect('{');
        if (peek() == '}') {
            pos++;
            return end(fields);
        }
        while (true) {
            String name = string();
            expect(':');
            fields.put(name, value());
            char c = next();
            if (c == '}') {
                return end(fields);
            }
            if (c != ',') {
                throw error("expected , or }");
            }
        }
    }

    private Map<String, String> end(Map<String, String> fields) {
        if (peek() != 0) {
            throw error("text after the object");
        }
        return fields;
    }

    private String value() {
        char c = peek();
        if (c == '"') {
            return string();
        }
        if (c == '{' || c == '[') {
            throw error("nested values are not supported");
        }
        int start = pos;
        while (pos < text.length() && ",} \t\r\n".indexOf(text.charAt(pos)) < 0) {
            pos++;
        }
        String literal = text.substring(start, pos);
        if (literal.isEmpty()) {
            throw error("expected a value");
        }
        return literal.equals("null") ? null : literal;
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return out.toString();
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char e = text.charAt(pos++);
            switch (e) {
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'u' -> {
                    out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    pos += 4;
                }
                default -> out.append(e);
            }
        }
    }

    private void expect(char wanted) {
        if (next() != wanted) {
            throw error("expected " + wanted);
        }
    }

    /** The next non-blank character (consumed), or 0 at the end. */
    private char next() {
        char c = peek();
        if (c != 0) {
            pos++;
        }
        return c;
    }

    /** The next non-blank character (not consumed), or 0 at the end. */
    private char peek() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
        return pos < text.length() ? text.charAt(pos) : 0;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("bad JSON at " + pos + ": " + what + " in: " + text);
    }
}
