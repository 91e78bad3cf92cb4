package io.sessionrep.discovery;

import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * Resolves the network options of a {@link ReplicationConfig} to socket addresses, failing with a
 * {@link ConfigException} that names the option and the value when a host cannot be used. Only what
 * needs this machine or DNS is checked here: ranges and shapes (ports, multicast literals, host:port) were
 * checked once, when the configuration was built, by the option table ({@code ConfigOption}).
 */
final class NetworkOptions {

    private NetworkOptions() {
    }

    /**
     * {@code bind-address}: must resolve to an address of this machine: one of its interfaces', the wildcard,
     * or any loopback address (on Linux all of 127.0.0.0/8 is local, so several nodes of one host can each
     * have their own address and the same port, as pods behind one DNS name do).
     */
    static InetAddress bindAddress(ReplicationConfig config) {
        String host = config.bindAddress();
        InetAddress address = resolve("bind-address", host, "a host name or IP address of this machine");
        if (!address.isAnyLocalAddress() && !address.isLoopbackAddress() && !isLocalInterface(address)) {
            throw new ConfigException("bind-address", "'" + host + "' (" + address.getHostAddress()
                    + ") is not an address of this machine; expected the address of a local network interface");
        }
        return address;
    }

    /** {@code peers}: every host must resolve; the ports are taken as given. */
    static List<InetSocketAddress> peers(ReplicationConfig config) {
        List<InetSocketAddress> result = new ArrayList<>();
        for (HostPort peer : config.peers()) {
            InetAddress address = resolve("peers", peer.host(), "host:port pairs whose host resolves");
            result.add(new InetSocketAddress(address, peer.port()));
        }
        return result;
    }

    /** {@code multicast-address}: a multicast literal (checked when the configuration was built). */
    static InetAddress multicastAddress(ReplicationConfig config) {
        return resolve("multicast-address", config.multicastAddress(), "an IP multicast group such as 228.8.8.8");
    }

    private static InetAddress resolve(String option, String host, String expected) {
        if (host == null || host.isBlank()) {
            throw new ConfigException(option, "no host given; expected " + expected);
        }
        try {
            return InetAddress.getByName(host.trim());
        } catch (UnknownHostException e) {
            throw new ConfigException(option, "host '" + host + "' cannot be resolved; expected " + expected);
        }
    }

    private static boolean isLocalInterface(InetAddress address) {
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return false;
        }
    }
}
