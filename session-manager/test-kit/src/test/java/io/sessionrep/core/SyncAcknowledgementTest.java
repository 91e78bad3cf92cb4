package io.sessionrep.core;

import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.ForwardingTransport;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sync mode: a reply that acknowledges another update (another session, or another version of this one) is not taken
 * as the backup's acknowledgement: the backup is a miss, and the reply is counted as malformed.
 */
class SyncAcknowledgementTest extends SessionReplicatorContract {
    private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(60);
    private static volatile UnaryOperator<Message.Ack> replace;

    SyncAcknowledgementTest() {
        super(repliesToAReplaced());
    }

    private static ContractNetwork repliesToAReplaced() {
        replace = null;
        return ContractNetwork.inMemory().wrapping("a", transport -> new ForwardingTransport(transport) {
            @Override
            public CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout) {
                return super.request(target, message, timeout).thenApply(reply -> {
                    UnaryOperator<Message.Ack> r = replace;
                    try {
                        return r != null && WireCodec.decode(reply) instanceof Message.Ack ack
                                ? WireCodec.encode(r.apply(ack), WireCodec.CURRENT) : reply;
                    } catch (io.sessionrep.core.wire.MalformedMessageException e) {
                        throw new AssertionError(e);
                    }
                });
            }
        });
    }

    @Test
    void anAcknowledgementOfAnotherSessionIsAMiss() {
        assertMissWhenRepliesAre(ack -> new Message.Ack(ack.status(), ack.version(), "another-session"));
    }

    @Test
    void anAcknowledgementOfAnotherVersionIsAMiss() {
        assertMissWhenRepliesAre(ack -> new Message.Ack(ack.status(), ack.version() - 1, ack.sessionId()));
    }

    private void assertMissWhenRepliesAre(UnaryOperator<Message.Ack> replaced) {
        SessionReplicator a = node("a", o -> o.replicationMode(ReplicationMode.SYNC).syncTimeout(SYNC_TIMEOUT));
        SessionReplicator b = node("b", o -> o.replicationMode(ReplicationMode.SYNC).syncTimeout(SYNC_TIMEOUT));
        TestSession s = newSession("s1").set("cart", "one book");
        a.requestEnd(s, s.tracker);
        assertTrue(b.hasBackup("s1"));
        assertEquals(0, a.metrics().syncTimeouts.count(), "its own acknowledgement is taken");

        replace = replaced;
        s.set("cart", "two books");
        a.requestEnd(s, s.tracker);
        assertEquals(1, a.metrics().syncTimeouts.count(), "the backup is a miss");
        assertEquals(1, a.metrics().rejectedMalformed.count());
    }
}
