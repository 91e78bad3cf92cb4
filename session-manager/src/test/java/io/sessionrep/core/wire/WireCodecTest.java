package io.sessionrep.core.wire;

import io.sessionrep.core.delta.SessionUpdate;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WireCodecTest {
    private static final SessionUpdate DELTA = new SessionUpdate("abc", 3, 4, false, 1000, 2000, 1800,
            Map.of("cart", new byte[] {1, 2, 3}, "user", new byte[] {9}), Set.of("gone"));

    @Test
    void everyMessageRoundTrips() throws Exception {
        List<Message> messages = List.of(
                new Message.Update(DELTA, true),
                new Message.Update(new SessionUpdate("x", 0, 1, true, 1, 2, 0, Map.of(), Set.of()), false),
                new Message.Ack(Message.AckStatus.NEED_FULL, 7),
                new Message.Invalidate("abc"),
                new Message.Ownership("abc", 9, "node-b", true),
                new Message.Ownership("abc", 9, "node-c", false),
                new Message.Fetch("abc"),
                new Message.FetchReply(null),
                new Message.FetchReply(new SessionUpdate("abc", 0, 4, true, 1, 2, 3, Map.of("a", new byte[5]), Set.of())),
                new Message.Resync("abc"),
                new Message.Refused("abc"),
                new Message.Reconcile(List.of("abc", "déf", "")),
                new Message.Reconcile(List.of()),
                new Message.ReconcileReply(List.of(
                        new Message.ReconcileReply.Claim("abc", Message.ClaimKind.PRIMARY, 7),
                        new Message.ReconcileReply.Claim("def", Message.ClaimKind.DORMANT_PRIMARY, 3),
                        new Message.ReconcileReply.Claim("ghi", Message.ClaimKind.BACKUP, 2),
                        new Message.ReconcileReply.Claim("jkl", Message.ClaimKind.INVALIDATED, 0))),
                new Message.ReconcileReply(List.of()));
        for (Message m : messages) {
            Message back = WireCodec.decode(WireCodec.encode(m));
            assertEquals(normalize(m), normalize(back));
        }
        Message.Update u = (Message.Update) WireCodec.decode(WireCodec.encode(new Message.Update(DELTA, true)));
        assertArrayEquals(new byte[] {1, 2, 3}, u.update().changed().get("cart"));
        assertEquals(Set.of("gone"), u.update().removed());
        assertTrue(u.ackRequested());
    }

    @Test
    void fromProtocol4AnAcknowledgementNamesItsSessionAndBeforeItCarriesNone() throws Exception {
        Message.Ack ack = new Message.Ack(Message.AckStatus.APPLIED, 7, "abc");
        assertEquals(ack, WireCodec.decode(WireCodec.encode(ack, 4)));
        assertEquals(new Message.Ack(Message.AckStatus.APPLIED, 7, null), WireCodec.decode(WireCodec.encode(ack, 3)));
        assertEquals(new Message.Ack(Message.AckStatus.APPLIED, 7, null), WireCodec.decode(WireCodec.encode(ack, 2)));
    }

    /**
     * The writer starts with the exact size of an update (and a fetch reply with a copy), so that the frame is
     * handed over without one more copy of it: the size function must agree with what is written, whatever
     * the characters of the names (1 to 4 UTF-8 bytes, lone surrogates written as '?').
     */
    @Test
    void updateSizeIsExact() throws Exception {
        List<String> names = List.of("", "cart", "déf", "€uro", "emoji\uD83D\uDE00", "lone\uD800", "lone\uDC00x", "x".repeat(300));
        for (String name : names) {
            SessionUpdate u = new SessionUpdate("id-" + name, 3, 4, false, 1000, 2000, 1800,
                    Map.of(name, new byte[17], "other", new byte[0]), Set.of(name + "-gone"));
            assertEquals(3 + WireCodec.updateSize(u), WireCodec.encode(new Message.Update(u, false)).length, name);
            assertEquals(4 + WireCodec.updateSize(u), WireCodec.encode(new Message.FetchReply(u)).length, name);
            assertEquals(2 + name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length, WireCodec.stringSize(name), name);
        }
    }

    /** byte[] has identity equality: compare updates through a printable form. */
    private static String normalize(Message m) {
        if (m instanceof Message.Update u) {
            return "U" + u.ackRequested() + describe(u.update());
        }
        if (m instanceof Message.FetchReply r) {
            return "F" + (r.copy() == null ? "-" : describe(r.copy()));
        }
        return m.toString();
    }

    private static String describe(SessionUpdate u) {
        StringBuilder sb = new StringBuilder(u.sessionId() + u.fromVersion() + u.toVersion() + u.full()
                + u.creationTime() + u.lastAccessedTime() + u.maxInactiveSeconds() + new java.util.TreeSet<>(u.removed()));
        new java.util.TreeMap<>(u.changed()).forEach((k, v) -> sb.append(k).append(java.util.Arrays.toString(v)));
        return sb.toString();
    }

    @Test
    void theOldestProtocolReadIsWrittenOnRequestAndReadBack() throws Exception {
        for (int version = WireCodec.OLDEST_READ; version <= WireCodec.CURRENT; version++) {
            byte[] bytes = WireCodec.encode(new Message.Update(DELTA, true), version);
            assertEquals(version, bytes[1]);
            Message.Update back = (Message.Update) WireCodec.decode(bytes);
            assertTrue(back.ackRequested());
            assertEquals(DELTA.changed().keySet(), back.update().changed().keySet());
            for (String name : DELTA.changed().keySet()) {
                assertArrayEquals(DELTA.changed().get(name), back.update().changed().get(name), name);
            }
            assertEquals(DELTA.removed(), back.update().removed());
        }
        assertThrows(IllegalArgumentException.class, () -> WireCodec.encode(new Message.Fetch("a"), WireCodec.CURRENT + 1));
    }

    @Test
    void operatorQueriesAndRepliesRoundTripFromProtocol4AndAreMalformedBefore() throws Exception {
        Message.AdminQuery query = new Message.AdminQuery(Message.AdminKind.PRINCIPAL, "ann", 10, 20);
        assertEquals(query, WireCodec.decode(WireCodec.encode(query, WireCodec.ADMIN_SINCE)));
        Message.AdminReply reply = new Message.AdminReply(3, java.util.List.of(
                new Message.AdminRow("#0a1b2c3d", "node-a", java.util.List.of("node-b"), 512, 1_700_000_000_000L, "ann"),
                new Message.AdminRow("#0a1b2c3e", "", java.util.List.of(), 0, 1L, "")));
        assertEquals(reply, WireCodec.decode(WireCodec.encode(reply, WireCodec.ADMIN_SINCE)));
        assertThrows(IllegalArgumentException.class, () -> WireCodec.encode(query, 3), "protocol 3 has no such message");
        byte[] asIfProtocol3 = WireCodec.encode(query, WireCodec.ADMIN_SINCE);
        asIfProtocol3[1] = 3;
        assertThrows(MalformedMessageException.class, () -> WireCodec.decode(asIfProtocol3));
        byte[] tooMany = WireCodec.encode(new Message.AdminQuery(Message.AdminKind.LIST, "", 0, 1), WireCodec.ADMIN_SINCE);
        tooMany[tooMany.length - 2] = 0x7f; // limit far above MAX_ROWS
        assertThrows(MalformedMessageException.class, () -> WireCodec.decode(tooMany));
        byte[] moreRowsThanTotal = WireCodec.encode(reply, WireCodec.ADMIN_SINCE);
        moreRowsThanTotal[6] = 1; // total 1 < 2 rows
        assertThrows(MalformedMessageException.class, () -> WireCodec.decode(moreRowsThanTotal));
    }

    @Test
    void unknownVersionAndTruncationAreRejected() {
        byte[] good = WireCodec.encode(new Message.Update(DELTA, false));
        byte[] otherVersion = good.clone();
        otherVersion[1] = (byte) (WireCodec.CURRENT + 1); // a protocol of a later build
        MalformedMessageException e = assertThrows(MalformedMessageException.class, () -> WireCodec.decode(otherVersion));
        assertTrue(e.getMessage().contains("version " + (WireCodec.CURRENT + 1)));
        otherVersion[1] = 1; // before values lost Kryo references: their bytes would decode wrong
        assertThrows(MalformedMessageException.class, () -> WireCodec.decode(otherVersion));
        for (int len = 0; len < good.length; len++) {
            byte[] truncated = java.util.Arrays.copyOf(good, len);
            assertThrows(MalformedMessageException.class, () -> WireCodec.decode(truncated));
        }
    }

    @Test
    void reconcileReplyWithAnUnknownClaimKindOrAnImpossibleCountIsRejected() {
        byte[] good = WireCodec.encode(new Message.ReconcileReply(List.of(
                new Message.ReconcileReply.Claim("x", Message.ClaimKind.BACKUP, 2))));
        byte[] badKind = good.clone();
        badKind[3 + 4 + 2 + 1] = 9; // header, count, id length, id, kind
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(badKind)).getMessage()
                .contains("claim kind 9"));
        byte[] hugeCount = WireCodec.encode(new Message.Reconcile(List.of()));
        hugeCount[3] = 0x7f;
        assertThrows(MalformedMessageException.class, () -> WireCodec.decode(hugeCount));
    }

    @Test
    void hugeDeclaredLengthsDoNotAllocate() {
        // an update claiming 2^31-1 attributes in a 40-byte message
        byte[] hostile = {0x53, (byte) WireCodec.CURRENT, 1, 0, 0, 1, 'x', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        assertThrows(MalformedMessageException.class, () -> WireCodec.decode(hostile));
    }

    /** Fuzz iterations: 200,000 in {@code mvn verify}; {@code -Dsessionrep.fuzz.iterations=1000000} for a long run. */
    static final int ITERATIONS = Integer.getInteger("sessionrep.fuzz.iterations", 200_000);

    /**
     * Property-based fuzz run: random bytes and mutations of valid messages either decode or fail with
     * MalformedMessageException, nothing else.
     */
    @Test
    void randomAndMutatedInputNeverThrowsAnythingElse() {
        Random random = new Random(Long.getLong("sessionrep.fuzz.seed", 20261121L));
        byte[] valid = WireCodec.encode(new Message.Update(DELTA, true));
        int decoded = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            byte[] input;
            if (i % 2 == 0) {
                input = new byte[random.nextInt(64)];
                random.nextBytes(input);
                if (input.length > 2) {
                    input[0] = 0x53;
                    input[1] = (byte) WireCodec.CURRENT;
                }
            } else {
                input = valid.clone();
                for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                    input[random.nextInt(input.length)] = (byte) random.nextInt(256);
                }
            }
            try {
                WireCodec.decode(input);
                decoded++;
            } catch (MalformedMessageException expected) {
                // rejected cleanly
            }
        }
        assertTrue(decoded > 0, "some mutations stay valid, so the fuzzer reaches deep paths");
    }

    @Test
    void malformedUtf8InAnIdIsRefusedRatherThanReplaced() throws Exception {
        byte[] valid = WireCodec.encode(new Message.Invalidate("seed"));
        assertEquals("seed", ((Message.Invalidate) WireCodec.decode(valid)).sessionId());
        byte[] malformed = valid.clone();
        malformed[malformed.length - 1] = (byte) 0xD3; // a lead byte without its continuation (found by Jazzer)
        assertThrows(MalformedMessageException.class, () -> WireCodec.decode(malformed));
    }

    @Test
    void anAttributeRemovedTwiceIsRefused() throws Exception {
        // A delta removing "gone" and "gonf" (same length, so the bytes can be patched): made to say "gone" twice.
        byte[] valid = WireCodec.encode(new Message.Update(new SessionUpdate("abc", 3, 4, false, 1000, 2000, 1800,
                Map.of(), new java.util.LinkedHashSet<>(List.of("gone", "gonf"))), false));
        assertEquals(2, ((Message.Update) WireCodec.decode(valid)).update().removed().size());
        byte[] twice = valid.clone();
        for (int i = 0; i < twice.length - 3; i++) {
            if (twice[i] == 'g' && twice[i + 1] == 'o' && twice[i + 2] == 'n' && twice[i + 3] == 'f') {
                twice[i + 3] = 'e';
            }
        }
        // Found by Jazzer: the set, sized for the declared count, iterated in another order than one sized for
        // what was left, so the message had two encodings. A duplicate now makes it malformed.
        MalformedMessageException e = assertThrows(MalformedMessageException.class, () -> WireCodec.decode(twice));
        assertTrue(e.getMessage().contains("removed twice"), e.getMessage());
    }
}
