package io.sessionrep.tomcat.dist;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** One HTTP answer of a test application: its status, its JSON body and the session cookie it set, if any. */
record Reply(int status, String body, String setCookie) {
    /** The value of {@code name} in the one-line JSON body (a string without quotes, a number, true, null). */
    String field(String name) {
        Matcher m = Pattern.compile("\"" + name + "\":\"?([^\",}]*)").matcher(body);
        assertTrue(m.find(), "no " + name + " in " + body);
        return m.group(1);
    }
}
