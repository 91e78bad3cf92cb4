package io.sessionrep.discovery;

import org.jgroups.logging.Log;
import org.jgroups.util.SocketFactory;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.MulticastSocket;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;

/**
 * The TCP transport's socket factory with its server socket behind a {@link HandshakeGate}: the server socket JGroups'
 * TCP server creates (service {@value #TCP_SERVER_SERVICE}) comes from the wrapped factory (plain, or TLS with its
 * parameters) and is handed over inside a gate. Every other socket, channel and server socket is the wrapped
 * factory's, unchanged.
 */
final class GatedSocketFactory implements SocketFactory {

    /** The service name under which JGroups' {@code TcpServer} asks for its server socket (JGroups 5.5). */
    static final String TCP_SERVER_SERVICE = "jgroups.tcp.server";

    private final SocketFactory factory;
    private final ChannelPortRefusals refusals;
    private final Log log;

    GatedSocketFactory(SocketFactory factory, ChannelPortRefusals refusals, Log log) {
        this.factory = factory;
        this.refusals = refusals;
        this.log = log;
    }

    /** The factory this one wraps. */
    SocketFactory wrapped() {
        return factory;
    }

    private ServerSocket gated(String service, ServerSocket server) throws IOException {
        if (!TCP_SERVER_SERVICE.equals(service)) {
            return server;
        }
        try {
            return new HandshakeGate(server, refusals, log);
        } catch (IOException | RuntimeException e) {
            factory.close(server);
            throw e;
        }
    }

    @Override
    public ServerSocket createServerSocket(String service) throws IOException {
        return gated(service, factory.createServerSocket(service));
    }

    @Override
    public ServerSocket createServerSocket(String service, int port) throws IOException {
        return gated(service, factory.createServerSocket(service, port));
    }

    @Override
    public ServerSocket createServerSocket(String service, int port, int backlog) throws IOException {
        return gated(service, factory.createServerSocket(service, port, backlog));
    }

    @Override
    public ServerSocket createServerSocket(String service, int port, int backlog, InetAddress bindAddr) throws IOException {
        return gated(service, factory.createServerSocket(service, port, backlog, bindAddr));
    }

    @Override
    public void close(ServerSocket socket) throws IOException {
        if (socket instanceof HandshakeGate) {
            socket.close(); // closes the server socket behind it
        } else {
            factory.close(socket);
        }
    }

    @Override public Socket createSocket(String service) throws IOException { return factory.createSocket(service); }
    @Override public Socket createSocket(String service, String host, int port) throws IOException {
        return factory.createSocket(service, host, port);
    }
    @Override public Socket createSocket(String service, InetAddress address, int port) throws IOException {
        return factory.createSocket(service, address, port);
    }
    @Override public Socket createSocket(String service, String host, int port, InetAddress localAddr, int localPort)
            throws IOException {
        return factory.createSocket(service, host, port, localAddr, localPort);
    }
    @Override public Socket createSocket(String service, InetAddress address, int port, InetAddress localAddr, int localPort)
            throws IOException {
        return factory.createSocket(service, address, port, localAddr, localPort);
    }
    @Override public SelectorProvider getSelectorProvider() { return factory.getSelectorProvider(); }
    @Override public SocketChannel createSocketChannel(String service) throws IOException {
        return factory.createSocketChannel(service);
    }
    @Override public SocketChannel createSocketChannel(String service, SocketAddress bindAddr) throws IOException {
        return factory.createSocketChannel(service, bindAddr);
    }
    @Override public ServerSocketChannel createServerSocketChannel(String service) throws IOException {
        return factory.createServerSocketChannel(service);
    }
    @Override public ServerSocketChannel createServerSocketChannel(String service, int port) throws IOException {
        return factory.createServerSocketChannel(service, port);
    }
    @Override public ServerSocketChannel createServerSocketChannel(String service, int port, int backlog) throws IOException {
        return factory.createServerSocketChannel(service, port, backlog);
    }
    @Override public ServerSocketChannel createServerSocketChannel(String service, int port, int backlog, InetAddress bindAddr)
            throws IOException {
        return factory.createServerSocketChannel(service, port, backlog, bindAddr);
    }
    @Override public DatagramSocket createDatagramSocket(String service) throws SocketException {
        return factory.createDatagramSocket(service);
    }
    @Override public DatagramSocket createDatagramSocket(String service, SocketAddress bindaddr) throws SocketException {
        return factory.createDatagramSocket(service, bindaddr);
    }
    @Override public DatagramSocket createDatagramSocket(String service, int port) throws SocketException {
        return factory.createDatagramSocket(service, port);
    }
    @Override public DatagramSocket createDatagramSocket(String service, int port, InetAddress laddr) throws SocketException {
        return factory.createDatagramSocket(service, port, laddr);
    }
    @Override public MulticastSocket createMulticastSocket(String service) throws IOException {
        return factory.createMulticastSocket(service);
    }
    @Override public MulticastSocket createMulticastSocket(String service, int port) throws IOException {
        return factory.createMulticastSocket(service, port);
    }
    @Override public MulticastSocket createMulticastSocket(String service, SocketAddress bindaddr) throws IOException {
        return factory.createMulticastSocket(service, bindaddr);
    }
    @Override public void close(Socket socket) throws IOException { factory.close(socket); }
    @Override public void close(DatagramSocket socket) { factory.close(socket); }
    @Override public void close(SocketChannel channel) { factory.close(channel); }
    @Override public void close(ServerSocketChannel channel) { factory.close(channel); }
}
