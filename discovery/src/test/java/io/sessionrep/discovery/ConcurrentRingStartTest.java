package io.sessionrep.discovery;

import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.MergeView;
import org.jgroups.Receiver;
import org.jgroups.View;
import org.jgroups.protocols.TCPPING;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * discovery=static, a ring of eight nodes that all start at the same moment (each lists only its predecessor):
 * eight real channels on 127.0.0.1 with the generated stack, connected together from eight threads. One node
 * founds the cluster and the seven others join it, so no merge is needed. With plain TCPPING each node would
 * hear of its two neighbours only and every node that comes first among itself and them would found a
 * cluster of its own (about a third of the nodes; all eight elect the same founder in about 1 % of the
 * orders), see {@link IntroducingTcpping}.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ConcurrentRingStartTest {

    private static final int NODES = 8;
    private final List<JChannel> channels = new ArrayList<>();

    @AfterEach
    void close() {
        for (int i = channels.size() - 1; i >= 0; i--) {
            channels.get(i).close();
        }
    }

    @Test
    void aRingStartedTogetherHasOneFounderAndNeedsNoMerge() throws Exception {
        String cluster = "concurrent-ring-" + System.nanoTime();
        int[] ports = freePorts(NODES);
        Set<Address> founders = ConcurrentHashMap.newKeySet();
        Set<String> merged = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < NODES; i++) {
            String name = "node-" + (char) ('a' + i);
            ReplicationConfig config = ReplicationConfig.builder().nodeName(name).discovery(DiscoveryMode.STATIC)
                    .bindAddress("127.0.0.1").bindPort(ports[i])
                    .peers(List.of(new HostPort("127.0.0.1", ports[(i + NODES - 1) % NODES]))).build();
            JChannel channel = new JChannel(JGroupsStacks.build(config)).name(name);
            channel.setReceiver(new Receiver() {
                private boolean first = true;

                @Override
                public void viewAccepted(View view) {
                    if (first) { // the first view a node gets names who founded the cluster it is in
                        founders.add(view.getCreator());
                        first = false;
                    }
                    if (view instanceof MergeView) {
                        merged.add(name);
                    }
                }
            });
            channels.add(channel);
        }

        CountDownLatch go = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(NODES);
        try {
            List<Future<?>> connects = new ArrayList<>();
            for (JChannel channel : channels) {
                connects.add(threads.submit(() -> {
                    go.await();
                    channel.connect(cluster);
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> connect : connects) {
                connect.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!allSee(NODES) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }

        assertEquals(1, founders.size(), "one node founded the cluster, the others joined it: founders " + founders
                + "; views " + views());
        assertTrue(allSee(NODES), "one view of " + NODES + ": " + views());
        assertTrue(merged.isEmpty(), "no merge was needed, but " + merged + " installed a merge view");
        long passedOn = channels.stream().map(c -> (IntroducingTcpping) c.getProtocolStack().findProtocol(TCPPING.class))
                .mapToLong(IntroducingTcpping::passedOn).sum();
        assertTrue(passedOn > 0, "the waiting nodes passed on the nodes they heard of");
    }

    private boolean allSee(int size) {
        return channels.stream().allMatch(c -> c.getView() != null && c.getView().size() == size);
    }

    private List<String> views() {
        return channels.stream().map(c -> c.getName() + ": " + c.getView()).toList();
    }

    /**
     * {@code count} ports 5 apart, each free on 127.0.0.1 and free at +100 (FD_SOCK2 listens from there to +103,
     * below the next node's transport port + 100).
     */
    private static int[] freePorts(int count) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int base = ThreadLocalRandom.current().nextInt(20_000, 30_000);
            int[] ports = new int[count];
            boolean free = true;
            for (int i = 0; i < count && free; i++) {
                ports[i] = base + 5 * i;
                free = free(ports[i]) && free(ports[i] + UpperProtocols.FD_SOCK_PORT_OFFSET);
            }
            if (free) {
                return ports;
            }
        }
        throw new IllegalStateException("no " + count + " free ports");
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
