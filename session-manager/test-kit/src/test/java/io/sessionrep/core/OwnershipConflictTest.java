package io.sessionrep.core;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Who owns a session when two nodes claim it at once. The case that lost data in the chaos runs: a
 * primary died; its first surviving backup promoted the session proactively while a request on another
 * survivor took it over from the same copy, so both claimed the same version. The node serving the
 * request must keep it (the promoted one yields), whatever the node names; and a node that lost a session
 * while its container was still loading it must tell the container again at the next request end, so no
 * live copy keeps serving changes that are never replicated.
 */
class OwnershipConflictTest {
    /** Sorts after "a": with a plain name tie-break this node would win every tie. */
    private static final String RIVAL = "zz-rival";
    /** Sorts before "a". */
    private static final String SMALLER = "0-smaller";

    private final List<String> lost = new CopyOnWriteArrayList<>();
    private SessionReplicator node;
    private IncomingMessages incoming;
    private SessionReplicator rivalNode;
    private SessionReplicator smallerNode;

    @BeforeEach
    void start() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        ReplicationConfig config = ReplicationConfig.builder().nodeName("a").machineId("a").build();
        node = SessionReplicator.start(config, network.transport("a", "a"), getClass().getClassLoader(),
                new SimpleMeterRegistry(), new SessionEvents() {
                    @Override
                    public void ownershipLost(String sessionId) {
                        lost.add(sessionId);
                    }

                    @Override
                    public void invalidatedElsewhere(String sessionId) {
                    }
                });
        incoming = node.incoming();
        // the rival is a real member of the view (messages from non-members are refused before any rule)
        rivalNode = SessionReplicator.start(ReplicationConfig.builder().nodeName(RIVAL).machineId("elsewhere").build(),
                network.transport(RIVAL, "elsewhere"), getClass().getClassLoader(), new SimpleMeterRegistry(),
                SessionEvents.NONE);
        smallerNode = SessionReplicator.start(ReplicationConfig.builder().nodeName(SMALLER).machineId("elsewhere-too")
                .build(), network.transport(SMALLER, "elsewhere-too"), getClass().getClassLoader(),
                new SimpleMeterRegistry(), SessionEvents.NONE);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> node.members().size() == 3);
    }

    @AfterEach
    void stop() {
        node.close();
        rivalNode.close();
        smallerNode.close();
    }

    @Test
    void aServingOwnerKeepsTheSessionAgainstAPromotionAtTheSameVersion() {
        long version = servedHere("s1");

        incoming.onMessage(rival(), WireCodec.encode(new Message.Ownership("s1", version, RIVAL, false)));
        // the promoted node also sends its copy to its backups, which may be this node
        incoming.onMessage(rival(), WireCodec.encode(new Message.Update(fullCopy("s1", version), false)));

        assertTrue(node.isPrimary("s1"), "the node serving requests keeps the session");
        assertFalse(node.hasBackup("s1"), "and holds no second, backup copy of it");
        assertEquals(List.of(), lost);
    }

    @Test
    void aServingOwnerYieldsToAnotherServingOwnerOnlyByTheRules() {
        long version = servedHere("s2");
        incoming.onMessage(smaller(), WireCodec.encode(new Message.Ownership("s2", version, "0-smaller", true)));
        assertTrue(node.isPrimary("s2"), "equal version and serving: the greater name wins, and that is this node");

        incoming.onMessage(rival(), WireCodec.encode(new Message.Ownership("s2", version, RIVAL, true)));
        assertFalse(node.isPrimary("s2"), "equal version, both serving, greater name: the rival");
        assertEquals(List.of("s2"), lost);
    }

    @Test
    void aNewerVersionWinsEvenFromAPromotion() {
        long version = servedHere("s3");
        incoming.onMessage(smaller(), WireCodec.encode(new Message.Ownership("s3", version + 1, "0-smaller", false)));
        assertFalse(node.isPrimary("s3"));
    }

    @Test
    void aPromotedEntryYieldsToAServingOwnerAtTheSameVersion() throws Exception {
        long version = servedHere("s4");
        NodeState state = stateOf(node);
        PrimaryEntry served = state.primary("s4");
        state.primaries.put("s4", new PrimaryEntry(served.copy, SessionOwnership.dormant())); // as if promoted by the rebalancer
        incoming.onMessage(smaller(), WireCodec.encode(new Message.Ownership("s4", version, "0-smaller", true)));
        assertFalse(node.isPrimary("s4"), "the serving owner wins over a promotion, whatever the names");
    }

    @Test
    void aSessionLostWhileTheContainerLoadedItIsReportedAgainAtRequestEnd() {
        TestSession session = new TestSession("s5", 0).set("x", 1);
        node.requestEnd(session, session.tracker);
        incoming.onMessage(rival(), WireCodec.encode(new Message.Ownership("s5", 99, RIVAL, true)));
        assertEquals(List.of("s5"), lost);

        // the container did not hold it yet and missed that notice: its next request ends here
        session.set("x", 2);
        node.requestEnd(session, session.tracker);

        assertEquals(List.of("s5", "s5"), lost, "the container is told again, so it drops its live copy");
        assertFalse(node.isPrimary("s5"), "and the change is not replicated from here");
    }

    /**
     * The same race, seen from the owner: its backup promoted the session from an older copy while a request here
     * took it over, and becoming primary took the copy this node had just sent it out of its backups. When that
     * node yields, it holds no copy of this node's version (or an older one that arrived late): the owner must stop
     * counting it as a backup and send it the session again, or the session has no backup although every node
     * reports ready, and the owner's death loses every write since (acknowledged ones in sync mode included).
     */
    @Test
    void aBackupThatAnnouncesAPromotionIsSentTheSessionAgain() throws Exception {
        long version = servedHere("s6");
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
                .until(() -> rivalNode.hasBackup("s6") || smallerNode.hasBackup("s6"));
        SessionReplicator backup = rivalNode.hasBackup("s6") ? rivalNode : smallerNode;
        Member backupMember = backup == rivalNode ? rival() : smaller();

        // the backup promoted an older copy: its backup copy is gone, and it announces itself primary
        stateOf(backup).backups.remove("s6");
        incoming.onMessage(backupMember, WireCodec.encode(
                new Message.Ownership("s6", version, backupMember.name(), false)));

        assertTrue(node.isPrimary("s6"), "the serving owner keeps the session");
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
                .until(() -> backup.backupVersion("s6") == node.primaryVersion("s6"));
    }

    private long servedHere(String id) {
        TestSession session = new TestSession(id, 0).set("x", 1);
        node.requestEnd(session, session.tracker);
        long version = node.primaryVersion(id);
        assertTrue(version > 0, "this node is primary of " + id + " at a replicated version");
        return version;
    }

    private static SessionUpdate fullCopy(String id, long version) {
        return new SessionUpdate(id, 0, version, true, 0, 0, 1800, Map.of(), Set.of());
    }

    private static Member smaller() {
        return new Member(SMALLER, "elsewhere-too");
    }

    private static Member rival() {
        return new Member(RIVAL, "elsewhere");
    }

    private static NodeState stateOf(SessionReplicator replicator) throws Exception {
        var field = SessionReplicator.class.getDeclaredField("node");
        field.setAccessible(true);
        return (NodeState) field.get(replicator);
    }
}
