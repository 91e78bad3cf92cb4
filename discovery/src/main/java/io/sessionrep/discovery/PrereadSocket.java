package io.sessionrep.discovery;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.nio.channels.SocketChannel;
import java.util.Set;
import javax.net.ssl.SSLSocket;

/**
 * An accepted connection whose first bytes were read already ({@link PeerHandshake}): its input stream gives them
 * first, then what the connection brings; everything else is the connection's own. JGroups' TCP server reads the
 * handshake from it as it would from the connection, and sets its options, reads, writes and closes it as usual.
 *
 * <p>JGroups sets SO_LINGER 0 on every TLS connection it accepts (it recognises one by its class, which this socket
 * hides); this socket does so for it.
 */
final class PrereadSocket extends Socket {

    private final Socket socket;
    private final InputStream in;

    PrereadSocket(Socket socket, byte[] preread) throws IOException {
        this.socket = socket;
        this.in = new SequenceInputStream(new ByteArrayInputStream(preread), socket.getInputStream());
        if (socket instanceof SSLSocket) {
            socket.setSoLinger(true, 0);
        }
    }

    @Override public InputStream getInputStream() { return in; }
    @Override public OutputStream getOutputStream() throws IOException { return socket.getOutputStream(); }

    @Override public void connect(SocketAddress endpoint) throws IOException { throw connected(); }
    @Override public void connect(SocketAddress endpoint, int timeout) throws IOException { throw connected(); }
    @Override public void bind(SocketAddress bindpoint) throws IOException { throw connected(); }
    @Override public InetAddress getInetAddress() { return socket.getInetAddress(); }
    @Override public InetAddress getLocalAddress() { return socket.getLocalAddress(); }
    @Override public int getPort() { return socket.getPort(); }
    @Override public int getLocalPort() { return socket.getLocalPort(); }
    @Override public SocketAddress getRemoteSocketAddress() { return socket.getRemoteSocketAddress(); }
    @Override public SocketAddress getLocalSocketAddress() { return socket.getLocalSocketAddress(); }
    @Override public SocketChannel getChannel() { return null; } // reading the channel would skip the bytes read
    @Override public void setTcpNoDelay(boolean on) throws SocketException { socket.setTcpNoDelay(on); }
    @Override public boolean getTcpNoDelay() throws SocketException { return socket.getTcpNoDelay(); }
    @Override public void setSoLinger(boolean on, int linger) throws SocketException { socket.setSoLinger(on, linger); }
    @Override public int getSoLinger() throws SocketException { return socket.getSoLinger(); }
    @Override public void sendUrgentData(int data) throws IOException { socket.sendUrgentData(data); }
    @Override public void setOOBInline(boolean on) throws SocketException { socket.setOOBInline(on); }
    @Override public boolean getOOBInline() throws SocketException { return socket.getOOBInline(); }
    @Override public void setSoTimeout(int timeout) throws SocketException { socket.setSoTimeout(timeout); }
    @Override public int getSoTimeout() throws SocketException { return socket.getSoTimeout(); }
    @Override public void setSendBufferSize(int size) throws SocketException { socket.setSendBufferSize(size); }
    @Override public int getSendBufferSize() throws SocketException { return socket.getSendBufferSize(); }
    @Override public void setReceiveBufferSize(int size) throws SocketException { socket.setReceiveBufferSize(size); }
    @Override public int getReceiveBufferSize() throws SocketException { return socket.getReceiveBufferSize(); }
    @Override public void setKeepAlive(boolean on) throws SocketException { socket.setKeepAlive(on); }
    @Override public boolean getKeepAlive() throws SocketException { return socket.getKeepAlive(); }
    @Override public void setTrafficClass(int tc) throws SocketException { socket.setTrafficClass(tc); }
    @Override public int getTrafficClass() throws SocketException { return socket.getTrafficClass(); }
    @Override public void setReuseAddress(boolean on) throws SocketException { socket.setReuseAddress(on); }
    @Override public boolean getReuseAddress() throws SocketException { return socket.getReuseAddress(); }
    @Override public void close() throws IOException { socket.close(); }
    @Override public void shutdownInput() throws IOException { socket.shutdownInput(); }
    @Override public void shutdownOutput() throws IOException { socket.shutdownOutput(); }
    @Override public String toString() { return socket.toString(); }
    @Override public boolean isConnected() { return socket.isConnected(); }
    @Override public boolean isBound() { return socket.isBound(); }
    @Override public boolean isClosed() { return socket.isClosed(); }
    @Override public boolean isInputShutdown() { return socket.isInputShutdown(); }
    @Override public boolean isOutputShutdown() { return socket.isOutputShutdown(); }
    @Override public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        socket.setPerformancePreferences(connectionTime, latency, bandwidth);
    }
    @Override public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
        socket.setOption(name, value);
        return this;
    }
    @Override public <T> T getOption(SocketOption<T> name) throws IOException { return socket.getOption(name); }
    @Override public Set<SocketOption<?>> supportedOptions() { return socket.supportedOptions(); }

    private static SocketException connected() {
        return new SocketException("an accepted connection: already connected");
    }
}
