package io.sessionrep.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every relative link in the README and in {@code docs/} reaches a file of the repository, and every
 * {@code #anchor} on a Markdown file names one of its headings (as GitHub derives them). The README is the
 * front door: a section moved to another file must not leave links pointing at nothing, and a link to a
 * report's git-ignored {@code raw/} files would work only on the machine that ran it.
 */
class DocLinksTest {
    private static final Path ROOT = Path.of("..");
    /** A Markdown link's target: the path (maybe empty) and the anchor (maybe absent). */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]*)(#[^)\\s]*)?\\)");
    private static final Pattern HEADING = Pattern.compile("(?m)^#+ (.*)$");
    private static final Pattern FENCED = Pattern.compile("(?s)```.*?```");

    @Test
    void everyRelativeLinkOfTheReadmeAndTheDocsResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path doc : documents()) {
            String text = FENCED.matcher(Files.readString(doc)).replaceAll("");
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String path = link.group(1);
                String anchor = link.group(2);
                if (path.contains(":")) {
                    continue; // https:, mailto:
                }
                Path target = path.isEmpty() ? doc : doc.getParent().resolve(path).normalize();
                if (!Files.exists(target) || inIgnoredDirectory(target)) {
                    broken.add(ROOT.relativize(doc) + ": " + link.group() + " (no such file in the repository, or only in an ignored directory)");
                } else if (anchor != null && target.toString().endsWith(".md")
                        && !headingAnchors(target).contains(anchor.substring(1))) {
                    broken.add(ROOT.relativize(doc) + ": " + link.group() + " (no such heading)");
                }
            }
        }
        assertEquals(List.of(), broken);
    }

    @Test
    void anchorsAreDerivedAsGithubDoes() {
        assertEquals("where-a-10s-figures-stand", anchorOf("Where A #10's figures stand"));
        assertEquals("the-floor-the-least-a-copy-costs-on-this-machine",
                anchorOf("The floor: the least a copy costs on this machine"));
        assertEquals("in-mvn-verify", anchorOf("In `mvn verify`"));
    }

    private static List<Path> documents() throws IOException {
        List<Path> documents = new ArrayList<>();
        documents.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        assertTrue(documents.size() > 3, "README and docs found from " + ROOT.toAbsolutePath());
        return documents;
    }

    /**
     * Under a directory git ignores ({@code raw/} of a report, a build's {@code target/}): present on the machine that
     * made it, absent from a clone. Any other file that exists and is not in git is absent from CI's clean clone,
     * where {@link Files#exists} fails it.
     */
    private static boolean inIgnoredDirectory(Path target) {
        for (Path part : ROOT.relativize(target)) {
            if (part.toString().equals("raw") || part.toString().equals("target")) {
                return true;
            }
        }
        return false;
    }

    private static Set<String> headingAnchors(Path markdown) {
        try {
            return HEADING.matcher(FENCED.matcher(Files.readString(markdown)).replaceAll("")).results()
                    .map(m -> anchorOf(m.group(1))).collect(Collectors.toSet());
        } catch (IOException e) {
            throw new IllegalStateException(markdown.toString(), e);
        }
    }

    /** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
    static String anchorOf(String heading) {
        return heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
    }
}
