package io.sessionrep.transport.jgroups;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.placement.BackupPlacement;
import io.sessionrep.core.testing.RecordingEvents;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.Member;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sync mode over real channels: the backup a request waits for is killed ({@code kill -9} of its JVM) before it
 * acknowledges. The request must not answer with the update held by the primary alone: once the view has dropped
 * the dead backup, the session's next backup gets a full copy and acknowledges it, within the same sync-timeout.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SyncBackupCrashTest {

    private final TestNodes nodes = new TestNodes();
    private final List<SessionReplicator> replicators = new ArrayList<>();
    private Process child;

    @AfterEach
    void cleanUp() {
        if (child != null) {
            child.destroyForcibly();
        }
        replicators.forEach(SessionReplicator::close);
    }

    @Test
    void aRequestWhoseBackupDiesBeforeAcknowledgingIsStoredOnTheNextBackupBeforeItReturns() throws Exception {
        int[] ports = TestNodes.freePorts(3); // a, b (the child JVM, which never answers), c
        SessionReplicator a = start("a", ports[0], ports[1], ports[2]);
        SessionReplicator c = start("c", ports[2], ports[0]);
        Path log = Files.createTempFile("child-node", ".log");
        log.toFile().deleteOnExit();
        child = ChildNode.launch(log, "b", nodes.clusterName, ports[1], ports[0]);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> (a.members().size() == 3 && c.members().size() == 3) || !child.isAlive());
        assertTrue(child.isAlive(), () -> "child node died: " + ChildNode.read(log));

        String id = sessionBackedUpBy(a, "b");
        TestSession session = new TestSession(id, System.currentTimeMillis()).set("cart", "three books");
        CompletableFuture<Void> request = CompletableFuture.runAsync(() -> a.requestEnd(session, session.tracker));
        Thread.sleep(500);
        assertFalse(request.isDone(), "the request waits for b's acknowledgement (b never answers)");
        child.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL: no goodbye

        request.get(30, TimeUnit.SECONDS);
        assertEquals(0, a.metrics().syncTimeouts.count(), "the request did not proceed unacknowledged");
        assertEquals(a.primaryVersion(id), c.backupVersion(id), "when the request returns, c holds its update");
        assertEquals(List.of("a", "c"), a.members().stream().map(Member::name).toList());
    }

    private SessionReplicator start(String name, int port, int... peerPorts) {
        ReplicationConfig config = nodes.staticNodeOptions(name, port, peerPorts)
                .replicationMode(ReplicationMode.SYNC).syncTimeout(Duration.ofSeconds(15)).build();
        SessionReplicator replicator = SessionReplicator.start(config, new JGroupsTransport(config),
                getClass().getClassLoader(), new SimpleMeterRegistry(), new RecordingEvents());
        replicators.add(replicator);
        return replicator;
    }

    /** An id whose backup, with {@code primary} as its primary in the current view, is {@code backup}. */
    private static String sessionBackedUpBy(SessionReplicator primary, String backup) {
        BackupPlacement placement = new BackupPlacement(1, true);
        Member self = primary.members().stream().filter(m -> m.name().equals(primary.nodeName())).findFirst().orElseThrow();
        for (int i = 0; ; i++) {
            String id = "session-" + i;
            if (placement.backups(id, self, primary.members()).get(0).name().equals(backup)) {
                return id;
            }
        }
    }
}
