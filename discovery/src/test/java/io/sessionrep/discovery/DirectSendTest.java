package io.sessionrep.discovery;

import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.protocols.TP;
import org.jgroups.util.ByteArrayDataOutputStream;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two real channels of the generated stack on 127.0.0.1: a unicast flagged DONT_BUNDLE is written by the thread that
 * sends it ({@link StopAwareBundler}), and is delivered after the regular messages sent to the same member before it,
 * which the destination's sender thread was still writing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DirectSendTest {

    private final List<JChannel> channels = new ArrayList<>();

    @AfterEach
    void close() {
        for (int i = channels.size() - 1; i >= 0; i--) {
            channels.get(i).close();
        }
    }

    /** The generated bundler, recording which threads write messages alone. */
    static final class RecordingBundler extends StopAwareBundler {
        final Set<Thread> singleWriters = ConcurrentHashMap.newKeySet();

        @Override
        protected void sendSingle(Address dest, Message msg, ByteArrayDataOutputStream out) throws Exception {
            if (msg.isFlagSet(Message.Flag.DONT_BUNDLE)) {
                singleWriters.add(Thread.currentThread());
            }
            super.sendSingle(dest, msg, out);
        }
    }

    @Test
    void aDontBundleUnicastIsWrittenByItsSenderAndDeliveredAfterWhatWasSentBefore() throws Exception {
        String cluster = "direct-send-" + System.nanoTime();
        int[] ports = freePorts();
        RecordingBundler bundler = new RecordingBundler();
        List<byte[]> received = new CopyOnWriteArrayList<>();
        JChannel a = channel("a", cluster, ports[0], ports[1], bundler, null);
        JChannel b = channel("b", cluster, ports[1], ports[0], null, received);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (b.getView().size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(2, a.getView().size());

        byte[] big = new byte[200_000];
        for (int i = 0; i < 30; i++) { // 6 MB for the sender thread: still being written when the last one is sent
            big[0] = (byte) i;
            a.send(new BytesMessage(b.getAddress(), big.clone()));
        }
        a.send(new BytesMessage(b.getAddress(), new byte[]{30}).setFlag(Message.Flag.DONT_BUNDLE));

        while (received.size() < 31 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(31, received.size());
        for (int i = 0; i <= 30; i++) {
            assertEquals((byte) i, received.get(i)[0], "message " + i + " in order");
        }
        assertEquals(Set.of(Thread.currentThread()), bundler.singleWriters, "written by the sending thread alone");
    }

    private JChannel channel(String name, String cluster, int port, int peerPort, StopAwareBundler bundler,
                             List<byte[]> received) throws Exception {
        ReplicationConfig config = ReplicationConfig.builder().nodeName(name).discovery(DiscoveryMode.STATIC)
                .bindAddress("127.0.0.1").bindPort(port).peers(List.of(new HostPort("127.0.0.1", peerPort))).build();
        JChannel channel = new JChannel(JGroupsStacks.build(config)).name(name);
        if (bundler != null) {
            ((TP) channel.getProtocolStack().getTransport()).setBundler(bundler);
        }
        if (received != null) {
            channel.setReceiver(new Receiver() {
                @Override
                public void receive(Message msg) {
                    received.add(msg.getArray());
                }
            });
        }
        channels.add(channel);
        channel.connect(cluster);
        return channel;
    }

    private static int[] freePorts() throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            int base = ThreadLocalRandom.current().nextInt(20_000, 30_000);
            if (free(base) && free(base + 5) && free(base + UpperProtocols.FD_SOCK_PORT_OFFSET)
                    && free(base + 5 + UpperProtocols.FD_SOCK_PORT_OFFSET)) {
                return new int[]{base, base + 5};
            }
        }
        throw new IllegalStateException("no free ports");
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
