package io.sessionrep.perf.floor;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a floor node listens, which peers get its copies, and whether a request waits for them. Read from the
 * system properties {@value #PORT} (the port this node's backups listen on, on 127.0.0.1), {@value #PEERS}
 * ({@code host:port,...}: every peer gets every change) and {@value #MODE} ({@code async}: the request writes
 * its changes into the sockets and returns; {@code sync}: it also waits until every peer has stored them).
 *
 * @param port  the port of this node's backups, on 127.0.0.1
 * @param peers the backups of this node's sessions
 * @param sync  whether a request waits for every peer's acknowledgement
 */
public record FloorSettings(int port, List<InetSocketAddress> peers, boolean sync) {

    public static final String PORT = "perf.floor.port";
    public static final String PEERS = "perf.floor.peers";
    public static final String MODE = "perf.floor.mode";

    public FloorSettings {
        peers = List.copyOf(peers);
    }

    /** The settings of this JVM's system properties. */
    public static FloorSettings fromSystemProperties() {
        return parse(System.getProperty(PORT), System.getProperty(PEERS), System.getProperty(MODE, "async"));
    }

    /** @throws IllegalArgumentException naming the property and what it allows */
    static FloorSettings parse(String port, String peers, String mode) {
        int listen;
        try {
            listen = Integer.parseInt(port == null ? "" : port.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PORT + ": '" + port + "' is not a port; expected 1..65535");
        }
        if (listen < 1 || listen > 65_535) {
            throw new IllegalArgumentException(PORT + ": " + listen + " is not a port; expected 1..65535");
        }
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (String peer : (peers == null ? "" : peers).split(",")) {
            if (peer.isBlank()) {
                continue;
            }
            int colon = peer.lastIndexOf(':');
            try {
                addresses.add(InetSocketAddress.createUnresolved(peer.substring(0, colon).trim(),
                        Integer.parseInt(peer.substring(colon + 1).trim())));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(PEERS + ": '" + peer + "' is not host:port");
            }
        }
        if (!"async".equals(mode) && !"sync".equals(mode)) {
            throw new IllegalArgumentException(MODE + ": '" + mode + "' is not allowed; expected async or sync");
        }
        return new FloorSettings(listen, addresses, "sync".equals(mode));
    }
}
