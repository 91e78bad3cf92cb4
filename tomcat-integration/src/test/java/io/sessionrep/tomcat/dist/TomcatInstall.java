package io.sessionrep.tomcat.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * What the build made for the distribution tests (paths from the failsafe configuration): the unpacked Tomcat
 * distribution, our drop-in jar, the test WAR and docs/install-tomcat.md; and the {@code CATALINA_BASE}s of one
 * test, in a directory of their own, with their processes ({@link #killAll} after the test).
 */
final class TomcatInstall {
    final Path home = Path.of(required("sessionrep.tomcat.home"));
    final Path jar = Path.of(required("sessionrep.tomcat.jar"));
    final InstallGuide guide;
    private final Path war = Path.of(required("sessionrep.test.war"));
    private final Path runDir;
    private final List<TomcatProcess> prepared = new ArrayList<>();

    /** The bases go to {@code <it dir>/<run>-<random>}. */
    TomcatInstall(String run) {
        try {
            guide = new InstallGuide(Path.of(required("sessionrep.install.doc")));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        runDir = Path.of(required("sessionrep.it.dir")).resolve(run + "-" + UUID.randomUUID().toString().substring(0, 8));
    }

    /** A {@code CATALINA_BASE} for node {@code name} ({@link CatalinaBase#create}), no application yet. */
    TomcatProcess prepare(String name, int httpPort, int shutdownPort) throws IOException {
        TomcatProcess node = CatalinaBase.create(home, jar, runDir.resolve(name), name, httpPort, shutdownPort);
        prepared.add(node);
        return node;
    }

    /** A base stopped by signals, running the test WAR with {@code contextXml} as its context. */
    TomcatProcess prepareTestWar(String name, int httpPort, String contextXml) throws IOException {
        return prepareTestWar(name, httpPort, CatalinaBase.NO_SHUTDOWN_PORT, contextXml);
    }

    /** A base as {@link #prepare}, running the test WAR with {@code contextXml} as its context, as section 3 says. */
    TomcatProcess prepareTestWar(String name, int httpPort, int shutdownPort, String contextXml) throws IOException {
        TomcatProcess node = prepare(name, httpPort, shutdownPort);
        Files.copy(war, node.base.resolve("webapps/session-test.war"));
        Files.writeString(node.base.resolve("conf/Catalina/localhost/session-test.xml"), contextXml);
        return node;
    }

    /** kill -9 of every Tomcat still running from a base made here. */
    void killAll() throws InterruptedException {
        for (TomcatProcess node : prepared) {
            node.kill();
        }
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        assertNotNull(value, "system property " + property + " (set by the failsafe configuration)");
        return value;
    }
}
