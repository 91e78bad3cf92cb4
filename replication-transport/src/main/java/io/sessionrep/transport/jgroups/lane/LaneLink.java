package io.sessionrep.transport.jgroups.lane;

import io.sessionrep.transport.jgroups.lane.LaneFrames.Hello;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One lane connection as both its ends know it from the hello: its id (random, chosen by the client), the client's
 * and the server's node instances (their JGroups addresses, new at every start), and how many frames each end has
 * sealed so far. With {@code cluster-key} every frame after the hello is sealed bound to
 * {@code id | direction | sender | receiver | sequence} ({@link #nextWritten}, {@link #nextRead}): a frame opens only on
 * the connection it was sealed for, in the direction it was sent, between the two instances that exchanged the hello,
 * and only as the next frame of its direction, so a frame replayed on another connection or towards another node,
 * reflected back to its sender, reordered or left out is not authentic there. Also numbers the client's exchanges,
 * which each reply names. The write side is used by one thread at a time, and so is the read side.
 */
final class LaneLink {

    static final byte CLIENT_TO_SERVER = 1;
    static final byte SERVER_TO_CLIENT = 2;
    static final int BINDING_BYTES = 16 + 1 + 16 + 16 + 8;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Hello hello;
    private final boolean atClient;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong read = new AtomicLong();
    private final AtomicLong exchanges = new AtomicLong();

    private LaneLink(Hello hello, boolean atClient) {
        this.hello = hello;
        this.atClient = atClient;
    }

    /** The client's end of a new connection: a fresh random id. */
    static LaneLink atClient(org.jgroups.Address self, org.jgroups.Address server) {
        return new LaneLink(Hello.of(RANDOM.nextLong(), RANDOM.nextLong(), self, server), true);
    }

    /** The server's end of the connection {@code hello} opened. */
    static LaneLink atServer(Hello hello) {
        return new LaneLink(hello, false);
    }

    Hello hello() {
        return hello;
    }

    /** The id of the next exchange the client starts on this connection: 1, 2, 3, ... */
    long nextExchange() {
        return exchanges.incrementAndGet();
    }

    /** The binding of the next frame this end writes. */
    byte[] nextWritten() {
        return binding(atClient ? CLIENT_TO_SERVER : SERVER_TO_CLIENT, written.incrementAndGet());
    }

    /** The binding the next frame this end reads must have been sealed with. */
    byte[] nextRead() {
        return binding(atClient ? SERVER_TO_CLIENT : CLIENT_TO_SERVER, read.incrementAndGet());
    }

    private byte[] binding(byte direction, long sequence) {
        ByteBuffer b = ByteBuffer.allocate(BINDING_BYTES).putLong(hello.idHigh()).putLong(hello.idLow()).put(direction);
        if (direction == CLIENT_TO_SERVER) {
            b.putLong(hello.clientHigh()).putLong(hello.clientLow()).putLong(hello.serverHigh()).putLong(hello.serverLow());
        } else {
            b.putLong(hello.serverHigh()).putLong(hello.serverLow()).putLong(hello.clientHigh()).putLong(hello.clientLow());
        }
        return b.putLong(sequence).array();
    }
}
