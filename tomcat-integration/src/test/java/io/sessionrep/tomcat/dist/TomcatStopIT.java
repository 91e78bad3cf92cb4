package io.sessionrep.tomcat.dist;

import io.sessionrep.testsupport.FreePorts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Rolling restart of the real distribution: two Tomcat processes installed as {@code docs/install-tomcat.md} says
 * (each with its shutdown port), stopped in turn with {@code catalina.sh stop} while users keep working on sessions
 * of both nodes (the other node's updates keep reaching the stopping node, their backup, as it closes), and started
 * again. {@value #STOPS_PROPERTY} stops (default {@value #DEFAULT_STOPS}; the
 * {@code chaos} profile runs 30).
 *
 * <p>{@code catalina.sh stop} ends Tomcat's main thread; the JVM then exits only when no non-daemon thread is left.
 * Each stopped JVM must be gone within {@link #EXIT_WITHIN} of the command (else the test prints its threads and
 * fails), and every user's session must answer on the other node with the version it was last answered (or the one
 * after, for a request in flight at the stop) and that version's checksum: the stop handed it over.
 */
@Timeout(value = 40, unit = TimeUnit.MINUTES)
class TomcatStopIT {
    static final String STOPS_PROPERTY = "sessionrep.chaos.stops";
    static final int DEFAULT_STOPS = 3;
    /** From {@code catalina.sh stop} to the JVM gone: the target of docs/operations.md. */
    static final Duration EXIT_WITHIN = Duration.ofSeconds(10);
    static final int USERS = 4;
    private static final List<String> BOTH = List.of("node-a", "node-b");

    private final TomcatInstall install = new TomcatInstall("stop");

    @AfterEach
    void killAll() throws InterruptedException {
        install.killAll();
    }

    @Test
    void catalinaStopEndsEachJvmWithinTenSecondsAndItsSessionsLiveOn() throws Exception {
        int stops = Integer.getInteger(STOPS_PROPERTY, DEFAULT_STOPS);
        int[] ports = FreePorts.onLoopback(6); // HTTP a, b; replication a, b; shutdown a, b
        TomcatProcess a = install.prepareTestWar("node-a", ports[0], ports[4], install.guide.context("node-a", ports[2], ports[3]));
        TomcatProcess b = install.prepareTestWar("node-b", ports[1], ports[5], install.guide.context("node-b", ports[2], ports[3]));
        List<TomcatProcess> nodes = List.of(a, b);
        for (TomcatProcess node : nodes) {
            node.start();
        }
        for (TomcatProcess node : nodes) {
            node.awaitServing();
        }
        a.awaitView(0, BOTH);

        LongSummaryStatistics exits = new LongSummaryStatistics();
        List<String> figures = new ArrayList<>();
        for (int k = 1; k <= stops; k++) {
            TomcatProcess stopping = k % 2 == 1 ? a : b;
            TomcatProcess other = stopping == a ? b : a;
            List<Tracked> users = newUsers(stopping);
            // and users of the node that stays: their updates reach the stopping node (their backup) as it closes
            List<Tracked> stayers = newUsers(other);
            try (Load load = new Load(users, stopping); Load busy = new Load(stayers, other)) {
                Thread.sleep(500); // under way
                TomcatProcess.Exit exit = stopping.catalinaStop(EXIT_WITHIN);
                long exitMillis = exit.took().toMillis();
                if (exit.killed()) {
                    fail("stop " + k + ": " + stopping.name + "'s JVM still alive " + exitMillis + " ms after catalina.sh"
                            + " stop; its threads:\n" + Files.readString(exit.threads()));
                }
                exits.accept(exitMillis);
                load.awaitEnd();
                assertTrue(busy.isRunning(), "stop " + k + ": the users of " + other.name + " were served throughout");
                assertTrue(load.answered > 0, "stop " + k + ": the users were answered while " + stopping.name + " ran");
                figures.add(String.format("stop %d: %s's JVM gone %d ms after catalina.sh stop (%d requests under way)",
                        k, stopping.name, exitMillis, load.answered));
            }
            List<Tracked> everyone = new ArrayList<>(users);
            everyone.addAll(stayers);
            for (Tracked user : everyone) {
                Reply reply = user.browser.get(other, "verify");
                assertEquals(200, reply.status(), "stop " + k + ": session on " + other.name + ": " + reply.body());
                int version = Integer.parseInt(reply.field("version"));
                assertTrue(version == user.version || (user.inFlight && version == user.version + 1),
                        "stop " + k + ": version " + version + " on " + other.name + ", last answered " + user.version
                                + (user.inFlight ? " (one in flight)" : ""));
                if (version == user.version) {
                    assertEquals(user.checksum, reply.field("checksum"), "stop " + k + ": the state last answered");
                }
            }
            int mark = other.logLineCount();
            stopping.start();
            stopping.awaitServing();
            other.awaitView(mark, BOTH);
            System.out.println("[tomcat stops] " + figures.get(figures.size() - 1));
        }
        System.out.println(String.format("[tomcat stops] %d catalina.sh stops: JVM gone after min %d / mean %.0f / max %d ms",
                stops, exits.getMin(), exits.getAverage(), exits.getMax()));
        for (TomcatProcess node : nodes) {
            List<String> severe = node.logLines(line -> line.contains("SEVERE") && !readerOfALeftChannel(line));
            assertTrue(severe.isEmpty(), node.name + " logged SEVERE lines: " + severe);
        }
    }

    /**
     * JGroups' "failed handling incoming message" of a node whose channel had already left (its address is null
     * then): its own connection reader, in the middle of a frame when the closing channel closed the socket under
     * it. Seen once in 16 stops under load; JGroups logs it at ERROR through its transport's own log, which cannot be
     * replaced. Not a failure of the stop: nothing of the node is in use any more.
     */
    private static boolean readerOfALeftChannel(String line) {
        return line.contains("JGRP000030: null: failed handling incoming message");
    }

    /** {@value #USERS} users, each with a session created and processed once on {@code node}. */
    private static List<Tracked> newUsers(TomcatProcess node) throws IOException, InterruptedException {
        List<Tracked> users = new ArrayList<>();
        for (int i = 0; i < USERS; i++) {
            Tracked user = new Tracked();
            user.answered(user.browser.get(node, "initialize&number=2&size=5"), node);
            user.answered(user.browser.get(node, "process"), node);
            users.add(user);
        }
        return users;
    }

    /** A user and what it was last answered. */
    private static final class Tracked {
        final User browser = new User();
        volatile int version;
        volatile String checksum;
        volatile boolean inFlight;

        void answered(Reply reply, TomcatProcess node) {
            assertEquals(200, reply.status(), node.name + ": " + reply.body());
            version = Integer.parseInt(reply.field("version"));
            checksum = reply.field("checksum");
        }
    }

    /** One thread sending {@code process} for each user to {@code node} in turn until a request fails (the stop). */
    private static final class Load implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;
        volatile long answered;

        Load(List<Tracked> users, TomcatProcess node) {
            thread = new Thread(() -> {
                while (running.get()) {
                    for (Tracked user : users) {
                        user.inFlight = true;
                        try {
                            Reply reply = user.browser.get(node, "process");
                            if (reply.status() != 200) {
                                return; // stopping: the application is gone
                            }
                            user.version = Integer.parseInt(reply.field("version"));
                            user.checksum = reply.field("checksum");
                            user.inFlight = false;
                            answered++;
                        } catch (IOException | InterruptedException | RuntimeException | AssertionError stopped) {
                            return; // the node stopped; this user's request may or may not have been handled
                        }
                    }
                }
            }, "load-" + node.name);
            thread.setDaemon(true);
            thread.start();
        }

        boolean isRunning() {
            return thread.isAlive();
        }

        void awaitEnd() throws InterruptedException {
            thread.join(30_000);
            assertTrue(!thread.isAlive(), "the load ended when its node stopped");
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join(30_000);
        }
    }
}
