package io.sessionrep.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The static files every test node serves with its container's default servlet (mapped at {@code /}), for the
 * scenarios of requests that never use the session: {@value #PAGE}, which {@code ignored-paths} does not match by
 * default, and {@value #STYLE}, which it does.
 */
public final class StaticFiles {
    public static final String PAGE = "page.html";
    public static final String STYLE = "style.css";
    public static final String PAGE_CONTENT = "<p>static page</p>";

    private StaticFiles() {
    }

    /** Writes the files into {@code directory} (created if needed); returns it. */
    public static Path write(Path directory) throws IOException {
        Files.createDirectories(directory);
        Files.writeString(directory.resolve(PAGE), PAGE_CONTENT);
        Files.writeString(directory.resolve(STYLE), "p { color: blue }");
        return directory;
    }
}
