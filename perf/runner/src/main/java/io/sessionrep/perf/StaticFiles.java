package io.sessionrep.perf;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The static files of the test WAR (its {@code static/} folder, served by the container's default servlet), which
 * the page-load workload fetches with every page: path in the application and size, so that a fetch is checked
 * to have brought the whole file.
 */
record StaticFiles(List<StaticFiles.File> files) {

    static final String FOLDER = "static/";

    /** One file: its path relative to the context root ({@code static/site.css}) and its length in bytes. */
    record File(String path, long bytes) {
    }

    StaticFiles {
        files = List.copyOf(files);
    }

    /** The {@value #FOLDER} entries of {@code war}, by name; fails when there is none. */
    static StaticFiles of(Path war) throws IOException {
        List<File> files = new ArrayList<>();
        try (ZipFile zip = new ZipFile(war.toFile())) {
            for (ZipEntry e : java.util.Collections.list(zip.entries())) {
                if (e.getName().startsWith(FOLDER) && !e.isDirectory()) {
                    files.add(new File(e.getName(), e.getSize()));
                }
            }
        }
        if (files.isEmpty()) {
            throw new IllegalStateException(war + " has no static files under " + FOLDER);
        }
        files.sort(Comparator.comparing(File::path));
        return new StaticFiles(files);
    }

    long totalBytes() {
        return files.stream().mapToLong(File::bytes).sum();
    }
}
