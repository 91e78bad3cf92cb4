package io.sessionrep.perf.node;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.discovery.JGroupsStacks;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.protocols.TCP;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The emulated latency of scenario 4 delays what a node sends, and keeps the order. */
class ConstantDelayTest {

    @Test
    void messagesArriveDelayedAndInOrder() throws Exception {
        int[] ports = {freePort(), freePort()};
        String cluster = "delay-test-" + ProcessHandle.current().pid();
        try (JChannel a = channel("delay-a", cluster, ports[0], ports[1]);
             JChannel b = channel("delay-b", cluster, ports[1], ports[0])) {
            a.connect(cluster);
            b.connect(cluster);
            BlockingQueue<Long> arrivals = new ArrayBlockingQueue<>(100);
            BlockingQueue<Integer> order = new ArrayBlockingQueue<>(100);
            b.setReceiver(new Receiver() {
                @Override
                public void receive(Message msg) {
                    arrivals.add(System.nanoTime());
                    order.add(msg.<byte[]>getObject()[0] & 0xff);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (a.getView().size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            ProtocolStack stack = a.getProtocolStack();
            ConstantDelay delay = new ConstantDelay(TimeUnit.MILLISECONDS.toNanos(50));
            delay.setProtocolStack(stack);
            delay.init();
            stack.insertProtocol(delay, ProtocolStack.Position.ABOVE, TCP.class);

            long sent = System.nanoTime();
            for (int i = 0; i < 10; i++) {
                a.send(new BytesMessage(b.getAddress(), new byte[]{(byte) i}));
            }
            Long first = arrivals.poll(10, TimeUnit.SECONDS);
            assertNotNull(first, "nothing arrived");
            long ms = TimeUnit.NANOSECONDS.toMillis(first - sent);
            assertTrue(ms >= 50, "arrived after " + ms + " ms, before the 50 ms delay");
            for (int i = 0; i < 10; i++) {
                Integer n = order.poll(10, TimeUnit.SECONDS);
                assertEquals(i, n, "order");
            }
        }
    }

    private static JChannel channel(String name, String cluster, int port, int peer) throws Exception {
        ReplicationConfig config = ReplicationConfig.fromMap(Map.of("node-name", name, "machine-id", name,
                "cluster-name", cluster, "discovery", "static", "bind-address", "127.0.0.1",
                "bind-port", Integer.toString(port), "peers", "127.0.0.1:" + peer));
        JChannel channel = new JChannel(JGroupsStacks.build(config));
        channel.name(name);
        return channel;
    }

    private static int freePort() throws Exception {
        while (true) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                if (s.getLocalPort() < 65_000 - 200) {
                    return s.getLocalPort();
                }
            }
        }
    }
}
