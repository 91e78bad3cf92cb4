package io.sessionrep.testsupport;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.MulticastSocket;
import java.net.NetworkInterface;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * Whether IP multicast sent on the loopback interface comes back to a listener on it: the probe the
 * multicast tests run before they start nodes ({@code DiscoveryModesTest} in replication-transport skips
 * without it; {@code MulticastNetwork} in test-servlet falls back to a network namespace).
 */
public final class LoopbackMulticast {

    private LoopbackMulticast() {
    }

    /** @return null when a datagram to {@code group}:{@code port} sent on 127.0.0.1 comes back, otherwise why not */
    public static String problem(String group, int port) {
        try {
            InetAddress loopback = InetAddress.getByName("127.0.0.1");
            NetworkInterface lo = NetworkInterface.getByInetAddress(loopback);
            InetSocketAddress groupAddress = new InetSocketAddress(InetAddress.getByName(group), port);
            try (MulticastSocket listener = new MulticastSocket(port);
                 MulticastSocket sender = new MulticastSocket()) {
                listener.joinGroup(groupAddress, lo);
                listener.setSoTimeout(2_000);
                sender.setNetworkInterface(lo);
                byte[] probe = "probe".getBytes(StandardCharsets.UTF_8);
                sender.send(new DatagramPacket(probe, probe.length, groupAddress));
                DatagramPacket received = new DatagramPacket(new byte[16], 16);
                listener.receive(received);
                return null;
            }
        } catch (SocketTimeoutException e) {
            return "a multicast datagram to " + group + ":" + port + " sent on lo never came back within 2 s";
        } catch (IOException e) {
            return "multicast on lo failed: " + e;
        }
    }
}
