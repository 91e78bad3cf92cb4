package io.sessionrep.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ThreadLocalRandom;

/**
 * TCP ports for test servers and JGroups channels on 127.0.0.1.
 * <ul>
 *   <li>Below Linux's ephemeral range (32768 and up): a port the kernel handed out as "free" can be taken
 *       by any outgoing connection's local port before the test binds it (a node dialling a peer that is
 *       not up yet makes one every few milliseconds).</li>
 *   <li>No two of the last {@value #REMEMBERED} ports handed out in this JVM (the nodes of one test) are
 *       within {@value #SPREAD} of each other, and each one's
 *       {@code + }{@value #FAILURE_DETECTION_OFFSET} is free too: JGroups' FD_SOCK2 listens on
 *       bind-port + 100.</li>
 * </ul>
 */
public final class FreePorts {
    /** JGroups' FD_SOCK2 offset from the bind port. */
    public static final int FAILURE_DETECTION_OFFSET = 100;
    private static final int SPREAD = FAILURE_DETECTION_OFFSET + 3;
    private static final int LOWEST = 15_000;
    private static final int BELOW = 32_000;
    private static final int REMEMBERED = 32;
    private static final Deque<Integer> HANDED_OUT = new ArrayDeque<>();

    private FreePorts() {
    }

    /** {@code count} distinct ports free on 127.0.0.1 when asked. */
    public static synchronized int[] onLoopback(int count) throws IOException {
        int[] ports = new int[count];
        int found = 0;
        for (int attempt = 0; found < count; attempt++) {
            if (attempt > 10_000) {
                throw new IOException("no free port found in " + LOWEST + ".." + BELOW + " on 127.0.0.1");
            }
            int candidate = ThreadLocalRandom.current().nextInt(LOWEST, BELOW);
            if (nearHandedOut(candidate) || !isFree(candidate) || !isFree(candidate + FAILURE_DETECTION_OFFSET)) {
                continue;
            }
            HANDED_OUT.addLast(candidate);
            if (HANDED_OUT.size() > REMEMBERED) {
                HANDED_OUT.removeFirst();
            }
            ports[found++] = candidate;
        }
        return ports;
    }

    private static boolean nearHandedOut(int candidate) {
        for (int port : HANDED_OUT) {
            if (Math.abs(port - candidate) <= SPREAD) {
                return true;
            }
        }
        return false;
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
