package io.sessionrep.discovery;

import io.sessionrep.discovery.FrameSealer.RefusedFrame;
import io.sessionrep.discovery.FrameSealer.Refusal;
import org.junit.jupiter.api.Test;

import javax.crypto.SecretKey;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sealing and opening frames of cluster-key: every alteration, replay and stale frame is refused. */
class FrameSealerTest {
    private static final SecretKey KEY = ClusterKeyEncryption.deriveKey("the-shared-secret-of-this-cluster", "c");
    private static final Duration SKEW = Duration.ofSeconds(60);
    private static final byte[] PLAIN = "user=alice; role=admin".getBytes(StandardCharsets.UTF_8);

    private final AtomicLong now = new AtomicLong(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
    private final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now.get());
        }
    };
    private final FrameSealer sender = new FrameSealer(KEY, clock, SKEW);
    private final FrameSealer receiver = new FrameSealer(KEY, clock, SKEW);

    private byte[] open(FrameSealer by, byte[] frame) throws RefusedFrame {
        return by.open(frame, 0, frame.length);
    }

    private Refusal refusal(FrameSealer by, byte[] frame) {
        return assertThrows(RefusedFrame.class, () -> open(by, frame)).reason;
    }

    @Test
    void aSealedFrameOpensOnceAndHidesItsContent() throws Exception {
        byte[] frame = sender.seal(PLAIN, 0, PLAIN.length);
        assertEquals(PLAIN.length + FrameSealer.OVERHEAD, frame.length);
        assertFalse(new String(frame, StandardCharsets.ISO_8859_1).contains("alice"));
        assertArrayEquals(PLAIN, open(receiver, frame));
        assertEquals(Refusal.REPLAYED, refusal(receiver, frame));
    }

    @Test
    void aFrameSealedWithBindingBytesOpensOnlyWithTheSameAndIsNotSpentByAWrongTry() throws Exception {
        byte[] binding = {1, 2, 3, 4};
        byte[] frame = sender.seal(PLAIN, 0, PLAIN.length, binding);
        assertEquals(PLAIN.length + FrameSealer.OVERHEAD, frame.length); // authenticated, not carried
        RefusedFrame other = assertThrows(RefusedFrame.class, () -> receiver.open(frame, 0, frame.length, new byte[]{1, 2, 3, 5}));
        assertEquals(Refusal.NOT_AUTHENTIC, other.reason);
        assertEquals(Refusal.NOT_AUTHENTIC, refusal(receiver, frame)); // nor without any
        assertArrayEquals(PLAIN, receiver.open(frame, 0, frame.length, binding.clone()));
        assertEquals(Refusal.REPLAYED, assertThrows(RefusedFrame.class,
                () -> receiver.open(frame, 0, frame.length, binding)).reason);
    }

    @Test
    void theSamePlaintextNeverGivesTheSameFrame() {
        byte[] first = sender.seal(PLAIN, 0, PLAIN.length);
        byte[] second = sender.seal(PLAIN, 0, PLAIN.length);
        assertFalse(Arrays.equals(Arrays.copyOfRange(first, FrameSealer.HEADER_BYTES, first.length),
                Arrays.copyOfRange(second, FrameSealer.HEADER_BYTES, second.length)));
    }

    @Test
    void flippingAnyBitOfAFrameIsRefusedAndLeavesNoState() {
        byte[] frame = sender.seal(PLAIN, 0, PLAIN.length);
        for (int i = 1; i < frame.length; i++) { // byte 0 is the version: MALFORMED, tested below
            for (int bit = 0; bit < 8; bit++) {
                byte[] flipped = frame.clone();
                flipped[i] ^= (byte) (1 << bit);
                Refusal reason = refusal(receiver, flipped);
                boolean sentAt = i >= 1 + FrameSealer.INSTANCE_BYTES + 8 && i < FrameSealer.HEADER_BYTES;
                assertTrue(reason == Refusal.NOT_AUTHENTIC || sentAt && reason == Refusal.STALE,
                        "byte " + i + " bit " + bit + ": " + reason);
            }
        }
        assertEquals(0, receiver.rememberedInstances(), "forged frames create no state");
    }

    @Test
    void anotherKeyOrClusterNameCannotOpenTheFrame() {
        byte[] frame = sender.seal(PLAIN, 0, PLAIN.length);
        FrameSealer otherKey = new FrameSealer(ClusterKeyEncryption.deriveKey("a-different-secret-entirely", "c"),
                clock, SKEW);
        FrameSealer otherCluster = new FrameSealer(ClusterKeyEncryption.deriveKey("the-shared-secret-of-this-cluster",
                "other"), clock, SKEW);
        assertEquals(Refusal.NOT_AUTHENTIC, refusal(otherKey, frame));
        assertEquals(Refusal.NOT_AUTHENTIC, refusal(otherCluster, frame));
    }

    @Test
    void truncatedOrUnknownVersionFramesAreMalformed() {
        byte[] frame = sender.seal(PLAIN, 0, PLAIN.length);
        assertEquals(Refusal.MALFORMED, refusal(receiver, Arrays.copyOf(frame, FrameSealer.OVERHEAD - 1)));
        byte[] version = frame.clone();
        version[0] = 2;
        assertEquals(Refusal.MALFORMED, refusal(receiver, version));
        assertEquals(Refusal.NOT_AUTHENTIC, refusal(receiver, Arrays.copyOf(frame, frame.length - 1)));
    }

    @Test
    void framesMayArriveOutOfOrderWithinTheWindowButEachOnlyOnce() throws Exception {
        byte[][] frames = new byte[10][];
        for (int i = 0; i < frames.length; i++) {
            frames[i] = sender.seal(PLAIN, 0, PLAIN.length);
        }
        for (int i = frames.length - 1; i >= 0; i--) {
            assertArrayEquals(PLAIN, open(receiver, frames[i]));
        }
        for (byte[] frame : frames) {
            assertEquals(Refusal.REPLAYED, refusal(receiver, frame));
        }
    }

    @Test
    void aFrameFarBehindTheNewestOfItsSenderIsRefused() throws Exception {
        byte[] old = sender.seal(PLAIN, 0, PLAIN.length);
        byte[] newest = null;
        for (int i = 0; i < ReplayWindow.SIZE; i++) {
            newest = sender.seal(PLAIN, 0, PLAIN.length);
        }
        open(receiver, newest);
        assertEquals(Refusal.REPLAYED, refusal(receiver, old));
    }

    @Test
    void framesOlderOrNewerThanTheClockSkewAreRefused() throws Exception {
        byte[] frame = sender.seal(PLAIN, 0, PLAIN.length);
        now.addAndGet(SKEW.toMillis() + 1);
        assertEquals(Refusal.STALE, refusal(receiver, frame), "a captured frame replayed later, to a node that never saw it");
        byte[] fromTheFuture = sender.seal(PLAIN, 0, PLAIN.length);
        now.addAndGet(-SKEW.toMillis() - 2);
        assertEquals(Refusal.STALE, refusal(receiver, fromTheFuture), "sent-at more than the skew ahead");
        now.addAndGet(2);
        assertArrayEquals(PLAIN, open(receiver, fromTheFuture), "within the skew it is accepted");
    }

    @Test
    void aSilentSenderIsForgottenOnlyWhenItsFramesCanNoLongerBeFresh() throws Exception {
        open(receiver, sender.seal(PLAIN, 0, PLAIN.length));
        FrameSealer other = new FrameSealer(KEY, clock, SKEW);
        now.addAndGet(2 * SKEW.toMillis());
        open(receiver, other.seal(PLAIN, 0, PLAIN.length));
        assertEquals(2, receiver.rememberedInstances());
        now.addAndGet(SKEW.toMillis() + 1);
        open(receiver, other.seal(PLAIN, 0, PLAIN.length));
        assertEquals(1, receiver.rememberedInstances(), "the first sender was silent for more than 2 x the skew + 1 min");
    }

    @Test
    void replayWindowAcceptsEachCounterOnce() {
        ReplayWindow window = new ReplayWindow();
        assertFalse(window.accept(0));
        assertTrue(window.accept(5));
        assertTrue(window.accept(3));
        assertFalse(window.accept(5));
        assertFalse(window.accept(3));
        assertTrue(window.accept(5 + ReplayWindow.SIZE));
        assertFalse(window.accept(5), "now too old");
        assertTrue(window.accept(6), "inside the window, never seen");
        assertTrue(window.accept(10L * ReplayWindow.SIZE));
        assertFalse(window.refuses(10L * ReplayWindow.SIZE - 1));
        assertTrue(window.refuses(10L * ReplayWindow.SIZE));
    }
}
