package io.sessionrep.transport.jgroups.lane;

import io.sessionrep.transport.jgroups.TestNodes;
import io.sessionrep.transport.jgroups.JGroupsTransport;
import io.sessionrep.transport.jgroups.LaneHooks;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An on-path attacker between one node's lane client and another node's lane server (tests): relays each connection's
 * frames (length-prefixed) and lets a test drop, hold back, reorder or replace them per direction. Frame 0 towards the
 * server is the hello.
 */
final class LaneRelay implements AutoCloseable {

    /** What to forward now when frame {@code index} of a connection's direction arrives: none, it, or others. */
    interface Tamper {
        List<byte[]> on(int index, byte[] frame);
    }

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final Tamper toServer;
    private final Tamper toClient;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private LaneRelay(InetSocketAddress target, Tamper toServer, Tamper toClient) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getByName(TestNodes.LOOPBACK));
        this.target = target;
        this.toServer = toServer;
        this.toClient = toClient;
        Thread acceptor = new Thread(this::accept, "lane-relay");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A relay through which {@code from}'s lane client reaches {@code to}'s lane from now on. */
    static LaneRelay between(JGroupsTransport from, JGroupsTransport to, Tamper toServer, Tamper toClient) throws IOException {
        LaneRelay relay = new LaneRelay(new InetSocketAddress(TestNodes.LOOPBACK, to.dataLanePort()), toServer, toClient);
        LaneHooks.lane(from).routeTo(LaneHooks.address(to),
                new InetSocketAddress(TestNodes.LOOPBACK, relay.server.getLocalPort()));
        return relay;
    }

    static Tamper untouched() {
        return (index, frame) -> List.of(frame);
    }

    private void accept() {
        try {
            while (true) {
                Socket client = server.accept();
                Socket upstream = new Socket(target.getAddress(), target.getPort());
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream, toServer);
                pump(upstream, client, toClient);
            }
        } catch (IOException closed) {
            // the relay is closed
        }
    }

    private void pump(Socket from, Socket to, Tamper tamper) {
        Thread t = new Thread(() -> {
            try {
                DataInputStream in = new DataInputStream(from.getInputStream());
                DataOutputStream out = new DataOutputStream(to.getOutputStream());
                for (int i = 0; ; i++) {
                    byte[] frame = new byte[in.readInt()];
                    in.readFully(frame);
                    for (byte[] f : tamper.on(i, frame)) {
                        out.writeInt(f.length);
                        out.write(f);
                    }
                    out.flush();
                }
            } catch (IOException gone) {
                LaneFrames.closeQuietly(from);
                LaneFrames.closeQuietly(to);
            }
        }, "lane-relay-pump");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        sockets.forEach(LaneFrames::closeQuietly);
    }
}
