package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MessageReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A node closed while the cluster is busy leaves no thread behind: three nodes over real JGroups channels on
 * 127.0.0.1 exchange requests and one-way messages in every direction, one of them is closed in the middle of it,
 * and within {@link #GONE_WITHIN} of its close returning no thread named after it (JGroups' threads carry the node's
 * name, ours too) is alive. Repeated {@value #ROUNDS_PROPERTY} times (default {@value #DEFAULT_ROUNDS}), each round
 * on a new cluster.
 *
 * <p>JGroups 5.5.7 alone failed every round: its per-destination bundler started a new sender thread for each
 * message sent after it had stopped, non-daemon, waiting for messages forever (two {@code pd-bundler} threads per
 * close, still alive seconds later); they kept Tomcat's JVM alive after {@code catalina.sh stop}.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class StopLeavesNoThreadsTest {

    static final String ROUNDS_PROPERTY = "sessionrep.stop-threads.rounds";
    static final int DEFAULT_ROUNDS = 6;
    /** How long after its close returned a node's threads may still be finishing. */
    static final Duration GONE_WITHIN = Duration.ofSeconds(5);
    /** How long the cluster is under load before the close. */
    static final long LOAD_BEFORE_CLOSE_MILLIS = 700;
    /** Requests each node has on their way at once. */
    static final int IN_FLIGHT = 16;
    /** How long the close itself may take: queues drained and barriers answered (3 s each at most), the channel. */
    static final Duration CLOSE_WITHIN = Duration.ofSeconds(10);

    @Test
    void aNodeClosedUnderLoadLeavesNoThreadOfItsOwn() throws Exception {
        int rounds = Integer.getInteger(ROUNDS_PROPERTY, DEFAULT_ROUNDS);
        List<String> closes = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            String leaver = String.format("leaver-r%03d", round);
            try (TestNodes nodes = new TestNodes(); Load load = new Load()) {
                int[] ports = TestNodes.freePorts(3);
                JGroupsTransport a = nodes.start(nodes.staticNode(leaver, ports[0], ports[1], ports[2]), new Echo());
                JGroupsTransport b = nodes.start(nodes.staticNode("stays-b", ports[1], ports[0], ports[2]), new Echo());
                JGroupsTransport c = nodes.start(nodes.staticNode("stays-c", ports[2], ports[0], ports[1]), new Echo());
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> a.members().size() == 3
                        && b.members().size() == 3 && c.members().size() == 3);
                assertTrue(threadsOf(leaver).size() > 5, "the leaver's threads carry its name: " + threadsOf(leaver));

                load.start(a, b, c);
                Thread.sleep(LOAD_BEFORE_CLOSE_MILLIS);
                assertTrue(load.answered() > 0, "the cluster answered requests before the close");
                long started = System.nanoTime();
                a.close();
                long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                        .until(() -> b.members().size() == 2 && c.members().size() == 2);

                long deadline = System.nanoTime() + GONE_WITHIN.toNanos();
                Map<Thread, StackTraceElement[]> left = threadsOf(leaver);
                while (!left.isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                    left = threadsOf(leaver);
                }
                long goneMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                if (!left.isEmpty()) {
                    fail("round " + round + ": " + left.size() + " thread(s) of " + leaver + " still alive "
                            + GONE_WITHIN.toMillis() + " ms after its close returned (close took " + closeMillis
                            + " ms):\n" + describe(left));
                }
                assertTrue(closeMillis < CLOSE_WITHIN.toMillis(), "round " + round + ": close took " + closeMillis + " ms");
                closes.add(closeMillis + " ms (threads gone after " + goneMillis + " ms)");
            }
        }
        System.out.println("[stop-threads] " + rounds + " closes under load: " + closes);
        assertEquals(rounds, closes.size());
    }

    /** Live threads whose name carries {@code nodeName}, with their stacks. */
    private static Map<Thread, StackTraceElement[]> threadsOf(String nodeName) {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> e.getKey().isAlive() && e.getKey().getName().contains(nodeName))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private static String describe(Map<Thread, StackTraceElement[]> threads) {
        StringBuilder out = new StringBuilder();
        threads.forEach((thread, stack) -> {
            out.append("  ").append(thread.getName()).append(thread.isDaemon() ? " (daemon, " : " (NOT daemon, ")
                    .append(thread.getState()).append(")\n");
            for (int i = 0; i < Math.min(12, stack.length); i++) {
                out.append("      at ").append(stack[i]).append('\n');
            }
        });
        return out.toString();
    }

    /** Answers every request with its message; keeps nothing. */
    private static final class Echo implements MessageReceiver {
        @Override
        public byte[] onMessage(Member sender, byte[] message) {
            return message;
        }

        @Override
        public void onMembershipChange(List<Member> members) {
        }
    }

    /** One thread per node: to each other member a request (at most {@link #IN_FLIGHT} unanswered) and a one-way message. */
    private static final class Load implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Thread> threads = new ArrayList<>();
        private final java.util.concurrent.atomic.LongAdder answered = new java.util.concurrent.atomic.LongAdder();

        void start(JGroupsTransport... nodes) {
            for (JGroupsTransport node : nodes) {
                Thread thread = new Thread(() -> run(node), "load-" + node.localMember().name().replace("leaver", "l"));
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
        }

        private void run(JGroupsTransport node) {
            Semaphore inFlight = new Semaphore(IN_FLIGHT);
            byte[] payload = new byte[1024];
            while (running.get()) {
                List<Member> members = node.members();
                if (members.size() < 2) { // closed, or alone: nothing to send
                    sleep();
                    continue;
                }
                for (Member target : members) {
                    if (target.equals(node.localMember())) {
                        continue;
                    }
                    try {
                        if (!inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                            continue;
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                    node.request(target, payload, Duration.ofSeconds(2)).whenComplete((reply, failure) -> {
                        inFlight.release();
                        if (failure == null) {
                            answered.increment();
                        }
                    });
                    node.send(target, payload);
                }
            }
        }

        private static void sleep() {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        long answered() {
            return answered.sum();
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(5_000);
            }
        }
    }
}
