package io.sessionrep.testsupport;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Lets a test hold a request inside the application ({@code /session?op=set-and-wait&gate=G}): the
 * request sets its attribute, reports that it got there, and waits until the test opens gate {@code G}.
 * The servlet waits at most 30 s, so a failed test never leaves a request hanging.
 */
public final class RequestGates {
    private static final Map<String, Gate> GATES = new ConcurrentHashMap<>();

    private RequestGates() {
    }

    /** A gate: {@link #reached} once a request waits at it; {@link #open} lets it go on. */
    public static final class Gate {
        private final CountDownLatch reached = new CountDownLatch(1);
        private final CountDownLatch opened = new CountDownLatch(1);

        /** Waits until a request waits at this gate; false after {@code seconds}. */
        public boolean awaitReached(long seconds) throws InterruptedException {
            return reached.await(seconds, TimeUnit.SECONDS);
        }

        public void open() {
            opened.countDown();
        }
    }

    /** Creates gate {@code name} (replacing an earlier one of that name). */
    public static Gate create(String name) {
        Gate gate = new Gate();
        GATES.put(name, gate);
        return gate;
    }

    /** Called by the servlet: reports the request there and waits for the test to open the gate. */
    static void pass(String name) {
        Gate gate = GATES.get(name);
        if (gate == null) {
            throw new IllegalStateException("no gate " + name);
        }
        gate.reached.countDown();
        try {
            gate.opened.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the request goes on: the container is stopping
        }
    }
}
