package io.sessionrep.discovery;

import org.jgroups.Version;
import org.jgroups.logging.Log;
import org.jgroups.stack.IpAddress;
import org.jgroups.util.ByteArrayDataOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gate in front of a real server socket on 127.0.0.1, with real client sockets: what {@link HandshakeGate#accept}
 * hands over (only complete handshakes, bytes intact, at once whatever waits before them), what it refuses and how
 * (bounds, time-out, bad bytes, counted and reported once), and what it neither hands over nor counts.
 */
@Timeout(30)
class HandshakeGateTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final Log log = (Log) Proxy.newProxyInstance(Log.class.getClassLoader(), new Class<?>[] {Log.class},
            (proxy, method, args) -> {
                if (method.getName().equals("warn") || method.getName().equals("error")) {
                    boolean formatted = args != null && args.length == 2 && args[1] instanceof Object[];
                    logged.add(method.getName() + " " + (formatted ? String.format((String) args[0], (Object[]) args[1])
                            : Arrays.deepToString(args)));
                }
                return method.getReturnType() == boolean.class ? Boolean.TRUE : null;
            });
    private final List<Socket> clients = new ArrayList<>();
    private ChannelPortRefusals refusals;
    private HandshakeGate gate;

    @BeforeEach
    void open() throws IOException {
        refusals = new ChannelPortRefusals(log);
        gate = new HandshakeGate(new ServerSocket(), refusals, log);
        gate.bind(new InetSocketAddress(LOOPBACK, 0)); // as JGroups binds the server socket it asked its factory for
    }

    @AfterEach
    void close() throws IOException {
        gate.close();
        for (Socket client : clients) {
            client.close();
        }
    }

    /** What a member writes first (JGroups' {@code TcpConnection.sendLocalAddress}), then {@code more}. */
    private static byte[] handshake(IpAddress address, byte[] more) throws IOException {
        ByteArrayDataOutputStream out = new ByteArrayDataOutputStream();
        out.write(new byte[] {'b', 'e', 'l', 'a'});
        out.writeShort(Version.version);
        out.writeShort(address.serializedSize());
        address.writeTo(out);
        out.write(more);
        return Arrays.copyOf(out.buffer(), out.position());
    }

    private Socket connect(byte[] firstBytes) throws IOException {
        Socket client = new Socket();
        clients.add(client);
        client.connect(new InetSocketAddress(LOOPBACK, gate.getLocalPort()), 1_000);
        if (firstBytes.length > 0) {
            client.getOutputStream().write(firstBytes);
            client.getOutputStream().flush();
        }
        return client;
    }

    private CompletableFuture<Socket> acceptor() {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return gate.accept();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    @Test
    void aMembersConnectionIsHandedOverAtOnceWithItsBytesIntactWhateverSilentOnesCameFirst() throws Exception {
        CompletableFuture<Socket> accepted = acceptor();
        for (int i = 0; i < 3; i++) {
            connect(new byte[0]); // an outsider's idle connections, first in line
        }
        IpAddress member = new IpAddress(LOOPBACK, 7800);
        byte[] frame = {0, 0, 0, 3, 'a', 'b', 'c'};
        long start = System.nanoTime();
        connect(handshake(member, frame));

        Socket handedOver = accepted.get(1, TimeUnit.SECONDS);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(millis < 500, "handed over without waiting for the silent ones: " + millis + " ms");
        // JGroups reads it as it reads a connection: the handshake, then the frames the member sent after it
        handedOver.setSoTimeout(1_000);
        DataInputStream in = new DataInputStream(handedOver.getInputStream());
        byte[] cookie = new byte[4];
        in.readFully(cookie);
        assertArrayEquals(new byte[] {'b', 'e', 'l', 'a'}, cookie);
        assertEquals(Version.version, in.readShort());
        assertEquals(member.serializedSize(), in.readShort());
        IpAddress read = new IpAddress();
        read.readFrom(in);
        assertEquals(member, read);
        byte[] rest = new byte[frame.length];
        in.readFully(rest);
        assertArrayEquals(frame, rest);
        assertEquals(0, refusals.silentConnections() + refusals.badHandshakes(), "nothing refused yet");
    }

    @Test
    void aHandedOverConnectionHasNoReadTimeOutLeft() throws Exception {
        CompletableFuture<Socket> accepted = acceptor();
        connect(handshake(new IpAddress(LOOPBACK, 7800), new byte[0]));
        assertEquals(0, accepted.get(1, TimeUnit.SECONDS).getSoTimeout());
    }

    @Test
    void silentConnectionsArePushedOutOldestFirstBeyondTheBoundAndTimedOutAtTwoSeconds() throws Exception {
        int count = 40;
        List<Socket> silent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            silent.add(connect(new byte[0]));
        }
        CompletableFuture<Socket> accepted = acceptor(); // starts the gate
        // all from 127.0.0.1: beyond 4 from one address, the oldest go at once
        int pushedOut = count - HandshakeGate.MAX_WAITING_PER_ADDRESS;
        long start = System.nanoTime();
        for (Socket s : silent.subList(0, pushedOut)) {
            assertTrue(closedByGate(s, 1_000), "pushed out at once");
        }
        assertTrue((System.nanoTime() - start) / 1_000_000 < HandshakeGate.HANDSHAKE_TIMEOUT_MILLIS / 2,
                "long before the time-out");
        assertEquals(pushedOut, refusals.silentConnections());
        // the newest wait their time, then go too
        for (Socket s : silent.subList(pushedOut, count)) {
            assertTrue(closedByGate(s, HandshakeGate.HANDSHAKE_TIMEOUT_MILLIS + 1_000), "timed out");
        }
        assertEquals(count, refusals.silentConnections());
        assertTrue(!accepted.isDone(), "none was handed over");
        assertEquals(1, logged.size(), "one warning for all of them: " + logged);
        assertTrue(logged.get(0).startsWith("warn refused 1 connection(s) to the channel port"), logged.get(0));
    }

    @Test
    void anIncompleteHandshakeIsNeverHandedOverAndTimesOut() throws Exception {
        CompletableFuture<Socket> accepted = acceptor();
        byte[] whole = handshake(new IpAddress(InetAddress.getByName("::1"), 7800), new byte[0]);
        Socket partial = connect(Arrays.copyOf(whole, whole.length - 1)); // all but the last byte of an IPv6 address
        assertTrue(closedByGate(partial, HandshakeGate.HANDSHAKE_TIMEOUT_MILLIS + 1_000));
        assertEquals(1, refusals.silentConnections());
        assertTrue(!accepted.isDone());
    }

    @Test
    void bytesThatAreNoJGroupsHandshakeAreRefusedAtOnceAndCounted() throws Exception {
        CompletableFuture<Socket> accepted = acceptor();
        byte[] member = handshake(new IpAddress(LOOPBACK, 7800), new byte[0]);
        byte[] wrongCookie = member.clone();
        wrongCookie[0] = 'B';
        byte[] oldVersion = member.clone();
        oldVersion[4] = 0;
        oldVersion[5] = 1;
        byte[] lyingLength = member.clone();
        lyingLength[7] = 3; // announces a 3-byte address, sends an IPv4 one of 7
        byte[] httpRequest = "GET / HTTP/1.1\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (byte[] bytes : List.of(wrongCookie, oldVersion, lyingLength, httpRequest)) {
            assertTrue(closedByGate(connect(bytes), 1_000), "closed at once");
        }
        assertEquals(4, refusals.badHandshakes());
        assertEquals(0, refusals.silentConnections());
        assertTrue(!accepted.isDone());
    }

    @Test
    void aConnectionItsPeerClosesFirstIsNeitherHandedOverNorCounted() throws Exception {
        CompletableFuture<Socket> accepted = acceptor();
        connect(new byte[0]).close(); // a port check; a suspecting member's probe
        connect(new byte[] {'b', 'e'}).close();
        Thread.sleep(300);
        connect(handshake(new IpAddress(LOOPBACK, 7800), new byte[0]));
        accepted.get(1, TimeUnit.SECONDS); // the member's, not the probes'
        assertEquals(0, refusals.silentConnections() + refusals.badHandshakes());
        assertEquals(List.of(), logged);
    }

    @Test
    void closingTheGateEndsAcceptAndClosesWhatWaits() throws Exception {
        CompletableFuture<Socket> accepted = acceptor();
        Socket waiting = connect(new byte[0]);
        Thread.sleep(200);
        gate.close();
        java.util.concurrent.ExecutionException failure = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> accepted.get(1, TimeUnit.SECONDS));
        assertTrue(failure.getCause().getCause() instanceof SocketException, String.valueOf(failure.getCause()));
        assertTrue(gate.isClosed());
        assertTrue(closedByGate(waiting, 1_000));
        assertTrue(portFreeWithin(gate.getLocalPort(), 2_000), "the port is released: binding it again succeeds");
        String prefix = "sessionrep-handshake-";
        String port = "-" + gate.getLocalPort();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        List<String> left;
        do {
            Thread.sleep(20);
            left = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                    .filter(name -> name.startsWith(prefix) && name.contains(port)).toList();
        } while (!left.isEmpty() && System.nanoTime() < until);
        assertEquals(List.of(), left, "the gate's own threads end with it");
    }

    /**
     * Whether {@code port} can be bound again within {@code millis}. Binding, not connecting: a connection to a free
     * ephemeral port can succeed by itself (a TCP self-connect), a bind cannot while anyone still listens there.
     */
    private static boolean portFreeWithin(int port, int millis) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (true) {
            try (ServerSocket again = new ServerSocket()) {
                again.bind(new InetSocketAddress(LOOPBACK, port));
                return true;
            } catch (IOException stillBound) {
                if (System.nanoTime() > until) {
                    return false;
                }
                Thread.sleep(20);
            }
        }
    }

    /** Whether the gate closed {@code s} within {@code millis}: the end of its stream, or a reset. */
    private static boolean closedByGate(Socket s, int millis) throws IOException {
        s.setSoTimeout(millis);
        InputStream in = s.getInputStream();
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (SocketException reset) {
            return true;
        }
    }
}
