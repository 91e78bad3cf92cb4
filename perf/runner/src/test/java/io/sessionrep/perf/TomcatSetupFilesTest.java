package io.sessionrep.perf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the runner writes into a Tomcat configuration: the WARs, our documented Manager, the cluster. */
class TomcatSetupFilesTest {

    private static final String WEB_XML = """
            <web-app>
              <display-name>x</display-name>

              <servlet>
                <servlet-name>session</servlet-name>
              </servlet>
            </web-app>
            """;

    @Test
    void theWarOfEveryConfigurationIsDistributableAndTheRedisOneAddsSpringSessionBeforeTheServlet() throws Exception {
        String plain = Wars.webXml(WEB_XML, "");
        assertTrue(plain.indexOf("<distributable/>") < plain.indexOf("<servlet>"), plain);
        String spring = Wars.webXml(WEB_XML, Wars.SPRING_SESSION_XML);
        assertTrue(spring.indexOf("<distributable/>") < spring.indexOf("springSessionRepositoryFilter"), spring);
        assertTrue(spring.indexOf("DelegatingFilterProxy") < spring.indexOf("<servlet>"), spring);

        Path dir = Files.createTempDirectory("wars");
        Path war = warWithWebXml(dir);
        Path jar = Files.writeString(dir.resolve("lib.jar"), "not really a jar");
        Path result = Wars.springSession(war, List.of(jar), dir.resolve("out/session-test.war"));
        try (var zip = new java.util.zip.ZipFile(result.toFile())) {
            assertTrue(zip.getEntry("WEB-INF/lib/lib.jar") != null);
            String webXml = new String(zip.getInputStream(zip.getEntry("WEB-INF/web.xml")).readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(webXml.contains("<distributable/>") && webXml.contains("RedisSessionConfig"), webXml);
        }
    }

    @Test
    void theFloorsWarAddsItsListenerAndFilterBeforeTheServletAndItsJarAndEachNodeCopiesToTheNextQuotaNodes() throws Exception {
        String floor = Wars.webXml(WEB_XML, Wars.FLOOR_XML);
        assertTrue(floor.indexOf("io.sessionrep.perf.floor.FloorListener") < floor.indexOf("<servlet>"), floor);
        assertTrue(floor.indexOf("io.sessionrep.perf.floor.FloorFilter") < floor.indexOf("<servlet>"), floor);

        Path dir = Files.createTempDirectory("wars");
        Path war = warWithWebXml(dir);
        Path jar = Files.writeString(dir.resolve("perf-floor.jar"), "not really a jar");
        try (var zip = new java.util.zip.ZipFile(Wars.floor(war, jar, dir.resolve("out/session-test.war")).toFile())) {
            assertTrue(zip.getEntry("WEB-INF/lib/perf-floor.jar") != null);
        }

        assertEquals(List.of("-Dperf.floor.port=4002", "-Dperf.floor.peers=127.0.0.1:4003,127.0.0.1:4001", "-Dperf.floor.mode=sync"),
                FloorNodes.properties(1, new int[]{4001, 4002, 4003}, 2, true));
        assertEquals(List.of("-Dperf.floor.port=4004", "-Dperf.floor.peers=127.0.0.1:4001", "-Dperf.floor.mode=async"),
                FloorNodes.properties(3, new int[]{4001, 4002, 4003, 4004}, 1, false));
    }

    /** A WAR holding only {@link #WEB_XML}, as the test servlet's WAR holds its own. */
    private static Path warWithWebXml(Path dir) throws Exception {
        Path war = dir.resolve("in.war");
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(war))) {
            out.putNextEntry(new ZipEntry("WEB-INF/web.xml"));
            out.write(WEB_XML.getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
        }
        return war;
    }

    @Test
    void ourManagerIsTheDocumentedOneWithThisNodesPortsAndMode() throws Exception {
        Layout layout = Layout.find();
        int[] ports = {41001, 41002, 41003};
        String async = TomcatCluster.oursContext(layout, TomcatSetup.OURS_ASYNC, 1, ports, null);
        assertTrue(async.contains("className=\"io.sessionrep.tomcat.ReplicatedSessionManager\""), async);
        assertTrue(async.contains("bindPort=\"41002\""), async);
        assertTrue(async.contains("peers=\"127.0.0.1:41001,127.0.0.1:41003\""), async);
        assertFalse(async.contains("replicationMode"), async);
        assertTrue(async.trim().endsWith("</Context>"), async);
        String sync = TomcatCluster.oursContext(layout, TomcatSetup.OURS_SYNC, 0, ports, null);
        assertTrue(sync.contains("replicationMode=\"sync\""), sync);
        assertFalse(sync.contains("asyncLane"), sync);
        assertFalse(async.contains("asyncLane"), "the lane is the default: " + async);
        String channel = TomcatCluster.oursContext(layout, TomcatSetup.OURS_ASYNC_CHANNEL, 0, ports, null);
        assertTrue(channel.contains("ReplicatedSessionManager\" asyncLane=\"false\""), channel);
        assertFalse(channel.contains("replicationMode"), channel);
        String syncChannelOnly = TomcatCluster.oursContext(layout, TomcatSetup.OURS_SYNC_CHANNEL, 0, ports, null);
        assertTrue(syncChannelOnly.contains("ReplicatedSessionManager\" dataLane=\"false\""), syncChannelOnly);
        assertTrue(syncChannelOnly.contains("replicationMode=\"sync\""), syncChannelOnly);
        String asyncChannelOnly = TomcatCluster.oursContext(layout, TomcatSetup.OURS_ASYNC_CHANNEL_ONLY, 0, ports, null);
        assertTrue(asyncChannelOnly.contains("ReplicatedSessionManager\" dataLane=\"false\""), asyncChannelOnly);
        assertFalse(asyncChannelOnly.contains("replicationMode"), asyncChannelOnly);
    }

    @Test
    void theSecuredVariantsAddTheirClusterKeyOrTlsStoresToTheDocumentedManager(@TempDir Path dir) throws Exception {
        Layout layout = Layout.find();
        int[] ports = {41001, 41002};
        NodeSecrets key = NodeSecrets.make(dir.resolve("key"), false);
        assertTrue(Files.readString(key.clusterKey()).length() >= 16, "a cluster key of 16 characters or more");
        String keyed = TomcatCluster.oursContext(layout, TomcatSetup.OURS_ASYNC_KEY, 0, ports, key);
        assertTrue(keyed.contains("ReplicatedSessionManager\" clusterKey=\"file:" + key.clusterKey() + "\""), keyed);
        assertFalse(keyed.contains("replicationMode") || keyed.contains("tls"), keyed);

        NodeSecrets tls = NodeSecrets.make(dir.resolve("tls"), true);
        assertTrue(Files.size(tls.keystore()) > 0 && Files.size(tls.truststore()) > 0, "keytool made both stores");
        String secured = TomcatCluster.oursContext(layout, TomcatSetup.OURS_ASYNC_TLS, 1, ports, tls);
        assertTrue(secured.contains("tlsKeystore=\"" + tls.keystore() + "\""), secured);
        assertTrue(secured.contains("tlsTruststore=\"" + tls.truststore() + "\""), secured);
        assertTrue(secured.contains("tlsKeystorePassword=\"" + NodeSecrets.PASSWORD + "\""), secured);
        assertThrows(IllegalArgumentException.class, () -> TomcatCluster.oursContext(layout, TomcatSetup.OURS_ASYNC_TLS, 0, ports, null));
    }

    @Test
    void tomcatsClusterHasStaticMembersWithThisNodeAsLocalMember() {
        String xml = TomcatCluster.clusterXml(TomcatSetup.BACKUP, 1, new int[]{4001, 4002});
        assertTrue(xml.contains("<Member className=\"org.apache.catalina.tribes.membership.StaticMember\" host=\"127.0.0.1\" port=\"4001\""), xml);
        assertTrue(xml.contains("<LocalMember className=\"org.apache.catalina.tribes.membership.StaticMember\" host=\"127.0.0.1\" port=\"4002\""), xml);
        assertTrue(xml.contains("org.apache.catalina.ha.session.BackupManager"), xml);
        assertTrue(xml.contains("address=\"127.0.0.1\" port=\"4002\""), xml);
        assertTrue(TomcatCluster.clusterXml(TomcatSetup.DELTA, 0, new int[]{4001, 4002}).contains("DeltaManager"));
    }

    @Test
    void backupManagerRunsSyncWithItsDefaultSendOptionsAndAsyncWithMapSendOptions8BesideOursOfTheSameMode() {
        String sync = TomcatCluster.clusterXml(TomcatSetup.BACKUP, 0, new int[]{4001, 4002});
        String async = TomcatCluster.clusterXml(TomcatSetup.BACKUP_ASYNC, 0, new int[]{4001, 4002});
        assertFalse(sync.contains("mapSendOptions"), sync); // Tomcat's default: SYNCHRONIZED_ACK | USE_ACK (6)
        assertTrue(async.contains("<Manager className=\"org.apache.catalina.ha.session.BackupManager\"")
                && async.contains("mapSendOptions=\"8\""), async);
        // the queue behind SEND_OPTIONS_ASYNCHRONOUS is the MessageDispatchInterceptor's: without it, 8 would send inline
        assertTrue(async.contains("org.apache.catalina.tribes.group.interceptors.MessageDispatchInterceptor"), async);
        assertTrue(TomcatSetup.BACKUP_ASYNC.tomcatCluster() && TomcatSetup.BACKUP_ASYNC.replicated());

        assertEquals(TomcatSetup.BACKUP, TomcatSetup.OURS_SYNC.sameModeBackupManager());
        assertEquals(TomcatSetup.BACKUP_ASYNC, TomcatSetup.OURS_ASYNC.sameModeBackupManager());
        for (TomcatSetup ours : TomcatSetup.PAIRED_WITH_BACKUP_MANAGER) {
            assertEquals(ours.sync(), ours.sameModeBackupManager() == TomcatSetup.BACKUP, ours.id());
        }
        assertThrows(IllegalArgumentException.class, TomcatSetup.BACKUP::sameModeBackupManager);
        assertThrows(IllegalArgumentException.class, () -> TomcatCluster.clusterXml(TomcatSetup.OFF, 0, new int[]{4001, 4002}));
    }

    @Test
    void theStaticFilesOfTheWarAreItsStaticFolderWithTheirSizes(@TempDir Path dir) throws Exception {
        Path war = dir.resolve("app.war");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(war))) {
            for (String[] e : new String[][]{{"WEB-INF/web.xml", "<web-app/>"}, {"static/", null}, {"static/b.js", "12345"},
                    {"static/a.css", "123"}, {"index.html", "x"}}) {
                zip.putNextEntry(new ZipEntry(e[0]));
                if (e[1] != null) {
                    zip.write(e[1].getBytes(StandardCharsets.UTF_8));
                }
                zip.closeEntry();
            }
        }
        StaticFiles files = StaticFiles.of(war);
        assertEquals(List.of(new StaticFiles.File("static/a.css", 3), new StaticFiles.File("static/b.js", 5)), files.files());
        assertEquals(8, files.totalBytes());

        Path empty = dir.resolve("empty.war");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(empty))) {
            zip.putNextEntry(new ZipEntry("WEB-INF/web.xml"));
            zip.closeEntry();
        }
        assertThrows(IllegalStateException.class, () -> StaticFiles.of(empty));
    }

    @Test
    void heapUsedIsReadFromG1AndFromGenerationalOutput() {
        assertEquals(41234L * 1024, HeapProbe.parseUsed("""
                12345:
                 garbage-first heap   total 524288K, used 41234K [0x00000000e0000000, 0x0000000100000000)
                  region size 1024K, 1 young (1024K), 0 survivors (0K)
                 Metaspace       used 30000K, committed 30500K, reserved 1114112K
                  class space    used 3500K, committed 3700K, reserved 1048576K
                """));
        assertEquals((100L + 2000) * 1024, HeapProbe.parseUsed("""
                 def new generation   total 157248K, used 100K [0x00000000e0000000, 0x00000000ea aa0000)
                 tenured generation   total 349568K, used 2000K [0x00000000eaaa0000, 0x0000000100000000)
                 Metaspace       used 30000K, committed 30500K, reserved 1114112K
                """));
    }

    @Test
    void aScenarioIsNoisyWhenTheLoadWasHighAtTheStartOrOthersUsedTheCpu() {
        long s = 1_000_000_000L;
        Quietness.Snapshot quiet = new Quietness.Snapshot(0, 0.3, 0, 0, 0);
        // 10 s: the machine busy for 15 s of CPU, the runner for 14 s: others 0.1 cores
        Quietness.Verdict own = Quietness.verdict(quiet, new Quietness.Snapshot(10 * s, 1.8, 1500, 0, 1400));
        assertFalse(own.noisy(), own.summary());
        Quietness.Verdict others = Quietness.verdict(quiet, new Quietness.Snapshot(10 * s, 2.5, 1500, 0, 500));
        assertTrue(others.noisy(), others.summary());
        assertTrue(others.summary().contains("other processes used 1.00 cores"), others.summary());
        Quietness.Verdict busyStart = Quietness.verdict(new Quietness.Snapshot(0, 1.5, 0, 0, 0),
                new Quietness.Snapshot(10 * s, 1.5, 100, 0, 100));
        assertTrue(busyStart.noisy() && busyStart.summary().contains("load 1.50 > 1.0 at the start"), busyStart.summary());
    }
}
