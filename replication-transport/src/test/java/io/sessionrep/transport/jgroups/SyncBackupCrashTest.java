package io.sessionrep.transport.jgroups;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.testing.RecordingEvents;
import io.sessionrep.core.testing.SessionIds;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.Member;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * With write-quota 2 too, where the other backup stays silent; and with write-quota 2 a first backup that hangs
 * (alive, never answering its lane) does not hold the request once the second has stored the update, or has left.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SyncBackupCrashTest {

    private final TestNodes nodes = new TestNodes();
    private final List<SessionReplicator> replicators = new ArrayList<>();
    private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(15);
    private final List<Process> children = new ArrayList<>();
    private final Map<Process, Path> logs = new HashMap<>();
    private final Map<String, JGroupsTransport> transports = new HashMap<>();

    @AfterEach
    void cleanUp() {
        children.forEach(Process::destroyForcibly);
        replicators.forEach(SessionReplicator::close);
    }

    @Test
    void aRequestWhoseBackupDiesBeforeAcknowledgingIsStoredOnTheNextBackupBeforeItReturns() throws Exception {
        ThreeNodes three = threeNodesWithSilentB(1);
        SessionReplicator a = three.a();
        SessionReplicator c = three.c();
        Process b = three.b();

        String id = SessionIds.backedUpBy(a, 1, List.of("b"));
        TestSession session = new TestSession(id, System.currentTimeMillis()).set("cart", "three books");
        CompletableFuture<Void> request = CompletableFuture.runAsync(() -> a.requestEnd(session, session.tracker));
        Thread.sleep(500);
        assertFalse(request.isDone(), "the request waits for b's acknowledgement (b never answers)");
        b.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL: no goodbye

        request.get(30, TimeUnit.SECONDS);
        assertEquals(0, a.metrics().syncTimeouts.count(), "the request did not proceed unacknowledged");
        assertEquals(a.primaryVersion(id), c.backupVersion(id), "when the request returns, c holds its update");
        assertEquals(List.of("a", "c"), a.members().stream().map(Member::name).toList());
    }

    /** Write-quota 2: both backups die together (a rack lost) while the request waits for them. */
    @Test
    void withTwoBackupsBothDeadTheRequestIsStoredOnTheNextBackup() throws Exception {
        FourNodes nodes = fourNodesWaitingForBAndD(true);
        nodes.b().destroyForcibly();
        nodes.d().destroyForcibly();

        nodes.request().get(30, TimeUnit.SECONDS);
        nodes.assertStoredOnC();
    }

    /**
     * Write-quota 2 over the channel alone ({@code data-lane=false}): one backup dies while the request waits, the
     * other stays silent (alive, never answering). The request must not wait out sync-timeout for the silent one:
     * the departure ends the wait, and the backups of the next view get the update, one of which stores it.
     */
    @Test
    void withTwoBackupsOneDeadAndOneSilentTheRequestIsStoredOnTheNextBackup() throws Exception {
        FourNodes nodes = fourNodesWaitingForBAndD(false);
        nodes.b().destroyForcibly().waitFor(10, TimeUnit.SECONDS);

        // well before sync-timeout: a request that waited for d until then could still pass by a race at the deadline
        nodes.request().get(SYNC_TIMEOUT.toMillis() / 3, TimeUnit.MILLISECONDS);
        nodes.assertStoredOnC();
        assertTrue(nodes.d().isAlive(), "d stayed, silent");
    }

    /**
     * Write-quota 2 with the data lane: the first backup, whose update the request thread exchanges over the lane,
     * hangs (alive, never answering: a long GC pause, a stuck receiver); the second stores the update over the
     * channel. The request must return soon after the second stored it, not after sync-timeout, and the next request
     * must not wait for the hung backup again.
     */
    @Test
    void withTwoBackupsTheFirstHungTheRequestReturnsOnceTheSecondStoredIt() throws Exception {
        ThreeNodes three = threeNodesWithSilentB(2);
        SessionReplicator a = three.a();
        SessionReplicator c = three.c();
        Process b = three.b();

        String id = SessionIds.backedUpBy(a, 2, List.of("b", "c")); // b first: its update goes over the lane
        TestSession session = new TestSession(id, System.currentTimeMillis());
        for (String cart : List.of("three books", "four books")) {
            session.set("cart", cart);
            long started = System.nanoTime();
            CompletableFuture.runAsync(() -> a.requestEnd(session, session.tracker))
                    .get(SYNC_TIMEOUT.toMillis() / 3, TimeUnit.MILLISECONDS); // the old code waited out sync-timeout
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertEquals(0, a.metrics().syncTimeouts.count(), "c stored it: not a miss");
            assertEquals(a.primaryVersion(id), c.backupVersion(id), "when the request returns, c holds its update");
            assertTrue(tookMillis < SYNC_TIMEOUT.toMillis() / 3, cart + ": took " + tookMillis + " ms");
        }
        assertEquals(1, transports.get("a").counters().laneExchangesGivenUp(),
                "the first exchange was given up; the second request did not wait for b's lane (resting)");
        assertTrue(b.isAlive(), "b stayed, hung");
    }

    /**
     * Write-quota 2 with the data lane, a re-send meeting a hung backup: the request waits for b (over the lane; b is
     * alive and never answers) and for d (over the channel); d dies. Its departure ends the wait for b too (b's
     * exchange is given up shortly after), and the re-send's full copies go to the backups of the next view: b first
     * again (still hung; its lane resting, so over the channel) and c. The request returns once c stored the update,
     * not after sync-timeout, which b's exchange alone held it for before.
     */
    @Test
    void withTwoBackupsTheFirstHungAndTheOtherDeadTheReSendReturnsOnceTheNextStoredIt() throws Exception {
        FourNodes nodes = fourNodesWaitingForBAndD(true,
                a -> SessionIds.backedUpBy(a, 2, List.of("b", "d"), "d", List.of("b", "c")));
        nodes.d().destroyForcibly().waitFor(10, TimeUnit.SECONDS);

        nodes.request().get(SYNC_TIMEOUT.toMillis() / 3, TimeUnit.MILLISECONDS);
        nodes.assertStoredOnC();
        assertTrue(nodes.b().isAlive(), "b stayed, hung");
        assertEquals(1, transports.get("a").counters().laneExchangesGivenUp(),
                "b's exchange was given up once; the re-send found its lane resting");
    }

    /**
     * Write-quota 2 with the data lane, the first backup slow rather than hung: it handles each update 1 s late
     * (a GC pause), well within sync-timeout but past the grace after the second backup stored it. The requests
     * return without waiting for it, and it still ends up holding every update (the given-up exchange's update went
     * to it over the channel too), so that it can take over the session.
     */
    @Test
    void withTwoBackupsASlowFirstOneIsNotWaitedForAndStillGetsEveryUpdate() throws Exception {
        int[] ports = TestNodes.freePorts(3);
        SessionReplicator a = start("a", 2, true, ports[0], ports[1], ports[2]);
        SessionReplicator b = start("b", 2, true, t -> new UpdatesHandledLate(t, Duration.ofSeconds(1)), ports[1], ports[0]);
        SessionReplicator c = start("c", 2, true, ports[2], ports[0]);
        await().atMost(Duration.ofSeconds(60)).until(() -> a.members().size() == 3 && b.members().size() == 3
                && c.members().size() == 3);

        String id = SessionIds.backedUpBy(a, 2, List.of("b", "c"));
        TestSession session = new TestSession(id, System.currentTimeMillis());
        for (int n = 1; n <= 5; n++) {
            session.set("cart", n + " books");
            long started = System.nanoTime();
            a.requestEnd(session, session.tracker);
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertTrue(tookMillis < 700, "request " + n + " waited " + tookMillis + " ms for the slow backup");
            assertEquals(a.primaryVersion(id), c.backupVersion(id), "when the request returns, c holds its update");
        }
        assertEquals(0, a.metrics().syncTimeouts.count());
        await().atMost(Duration.ofSeconds(30)).until(() -> b.backupVersion(id) == a.primaryVersion(id));
        assertTrue(transports.get("a").counters().laneExchangesGivenUp() >= 1, "the slow exchange was given up");
    }

    /** A node's transport whose receiver handles every session update {@code delay} late, on the delivering thread. */
    private static final class UpdatesHandledLate extends io.sessionrep.core.transport.ForwardingTransport {
        private final Duration delay;

        UpdatesHandledLate(io.sessionrep.core.transport.ReplicationTransport transport, Duration delay) {
            super(transport);
            this.delay = delay;
        }

        @Override
        public void start(io.sessionrep.core.transport.MessageReceiver receiver) {
            super.start(new io.sessionrep.core.transport.MessageReceiver() {
                @Override
                public byte[] onMessage(Member sender, byte[] message) {
                    if (isUpdate(message)) {
                        try {
                            Thread.sleep(delay.toMillis());
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return receiver.onMessage(sender, message);
                }

                @Override
                public void onMembershipChange(List<Member> members) {
                    receiver.onMembershipChange(members);
                }
            });
        }

        private static boolean isUpdate(byte[] message) {
            try {
                return io.sessionrep.core.wire.WireCodec.decode(message) instanceof io.sessionrep.core.wire.Message.Update;
            } catch (io.sessionrep.core.wire.MalformedMessageException e) {
                return false;
            }
        }
    }

    /** a and c in this JVM, b a JVM that never answers, all in one view. */
    private record ThreeNodes(SessionReplicator a, SessionReplicator c, Process b) {
    }

    private ThreeNodes threeNodesWithSilentB(int writeQuota) throws Exception {
        int[] ports = TestNodes.freePorts(3);
        SessionReplicator a = start("a", writeQuota, true, ports[0], ports[1], ports[2]);
        SessionReplicator c = start("c", writeQuota, true, ports[2], ports[0]);
        Process b = child("b", ports[1], ports[0]);
        awaitView(3, b, a, c);
        return new ThreeNodes(a, c, b);
    }

    /** a (primary) and c in this JVM, b and d JVMs that never answer; a request of a's waiting for b and d. */
    private record FourNodes(SessionReplicator a, SessionReplicator c, Process b, Process d, String id,
                             CompletableFuture<Void> request) {
        void assertStoredOnC() {
            assertEquals(0, a.metrics().syncTimeouts.count(), "the request did not proceed unacknowledged");
            assertEquals(a.primaryVersion(id), c.backupVersion(id), "when the request returns, c holds its update");
        }
    }

    private FourNodes fourNodesWaitingForBAndD(boolean dataLane) throws Exception {
        return fourNodesWaitingForBAndD(dataLane, a -> SessionIds.backedUpBy(a, 2, List.of("b", "d")));
    }

    private FourNodes fourNodesWaitingForBAndD(boolean dataLane, java.util.function.Function<SessionReplicator, String> sessionId)
            throws Exception {
        int[] ports = TestNodes.freePorts(4); // a, b, c, d
        SessionReplicator a = start("a", 2, dataLane, ports[0], ports[1], ports[2], ports[3]);
        SessionReplicator c = start("c", 2, dataLane, ports[2], ports[0]);
        Process b = child("b", ports[1], ports[0]);
        Process d = child("d", ports[3], ports[0]);
        awaitView(4, b, a, c);
        assertTrue(d.isAlive(), () -> "child node died: " + ChildNode.read(logs.get(d)));

        String id = sessionId.apply(a);
        TestSession session = new TestSession(id, System.currentTimeMillis()).set("cart", "three books");
        CompletableFuture<Void> request = CompletableFuture.runAsync(() -> a.requestEnd(session, session.tracker));
        Thread.sleep(500);
        assertFalse(request.isDone(), "the request waits for b's or d's acknowledgement (neither answers)");
        return new FourNodes(a, c, b, d, id, request);
    }

    private SessionReplicator start(String name, int writeQuota, boolean dataLane, int port, int... peerPorts) {
        return start(name, writeQuota, dataLane, t -> t, port, peerPorts);
    }

    private SessionReplicator start(String name, int writeQuota, boolean dataLane,
                                    java.util.function.UnaryOperator<io.sessionrep.core.transport.ReplicationTransport> wrap,
                                    int port, int... peerPorts) {
        ReplicationConfig config = nodes.staticNodeOptions(name, port, peerPorts).writeQuota(writeQuota).dataLane(dataLane)
                .replicationMode(ReplicationMode.SYNC).syncTimeout(SYNC_TIMEOUT).build();
        JGroupsTransport transport = new JGroupsTransport(config);
        SessionReplicator replicator = SessionReplicator.start(config, wrap.apply(transport),
                getClass().getClassLoader(), new SimpleMeterRegistry(), new RecordingEvents());
        replicators.add(replicator);
        transports.put(name, transport);
        return replicator;
    }

    /** A node in a JVM of its own that never answers, killed by the test or after it. */
    private Process child(String name, int port, int peerPort) throws Exception {
        Path log = Files.createTempFile("child-node-" + name, ".log");
        log.toFile().deleteOnExit();
        Process child = ChildNode.launch(log, name, nodes.clusterName, port, peerPort);
        children.add(child);
        logs.put(child, log);
        return child;
    }

    private void awaitView(int size, Process child, SessionReplicator... members) {
        await().atMost(Duration.ofSeconds(60)).until(() -> !child.isAlive()
                || Arrays.stream(members).allMatch(m -> m.members().size() == size));
        assertTrue(child.isAlive(), () -> "child node died: " + ChildNode.read(logs.get(child)));
    }

}
