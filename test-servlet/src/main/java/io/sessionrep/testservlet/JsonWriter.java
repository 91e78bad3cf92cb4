package io.sessionrep.testservlet;

/** Writes one flat JSON object: string, number and null values, keys in call order. */
public final class JsonWriter {

    private final StringBuilder out = new StringBuilder("{");

    private JsonWriter() {
    }

    public static JsonWriter object() {
        return new JsonWriter();
    }

    /** A string field; null writes {@code null}. */
    public JsonWriter field(String name, String value) {
        key(name);
        if (value == null) {
            out.append("null");
        } else {
            quote(value);
        }
        return this;
    }

    /** A number field; null writes {@code null}. */
    public JsonWriter field(String name, Number value) {
        key(name);
        out.append(value == null ? "null" : value.toString());
        return this;
    }

    /** A boolean field. */
    public JsonWriter field(String name, boolean value) {
        key(name);
        out.append(value);
        return this;
    }

    @Override
    public String toString() {
        return out + "}";
    }

    private void key(String name) {
        if (out.length() > 1) {
            out.append(',');
        }
        quote(name);
        out.append(':');
    }

    private void quote(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
