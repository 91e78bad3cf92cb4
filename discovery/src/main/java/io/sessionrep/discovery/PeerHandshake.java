package io.sessionrep.discovery;

import org.jgroups.Version;
import org.jgroups.blocks.cs.Connection;
import org.jgroups.stack.IpAddress;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.util.Arrays;
import javax.net.ssl.SSLSocket;

/**
 * Reads what a member sends first on a connection to the channel port, as JGroups' TCP server would read it
 * ({@code TcpConnection.readPeerAddress}, JGroups 5.5): with TLS, after the TLS handshake, JGroups' cookie
 * ({@code "bela"}, 4 bytes), its version (a short), the length of the address (a short) and the address itself
 * ({@link IpAddress}: a length byte, 4 or 16 bytes of IP, a scope id for IPv6, the port). A member writes all of this
 * at once as it connects. {@link #read} returns the connection with these bytes still to be read
 * ({@link PrereadSocket}) once they are all here, and only if JGroups will accept them: the same cookie, a version
 * JGroups calls compatible, an address that parses to exactly the length announced. JGroups then reads them from memory
 * and never waits.
 */
final class PeerHandshake {

    /** Cookie, version and address length. */
    static final int HEADER_SIZE = 4 + 2 + 2;
    /** The shortest address {@link IpAddress} writes (no IP: its length byte and the port). */
    static final int MIN_ADDRESS_SIZE = 1 + 2;
    /** The longest: an IPv6 address with its scope id. */
    static final int MAX_ADDRESS_SIZE = 1 + 16 + 4 + 2;

    /** The first bytes are not a JGroups handshake this node can read, or the TLS handshake failed. */
    static final class NotAHandshake extends IOException {
        NotAHandshake(String message) {
            super(message);
        }
    }

    private static final byte[] COOKIE = Connection.cookie.clone();

    private PeerHandshake() {
    }

    /**
     * Waits for the handshake on {@code socket}, each read at most {@code timeoutMillis} (the caller bounds the whole);
     * the socket, as JGroups' acceptor is to see it, with no read time-out left set.
     *
     * @throws NotAHandshake                   when the bytes cannot be a member's handshake
     * @throws java.net.SocketTimeoutException when a read waited {@code timeoutMillis}
     * @throws IOException                     when the connection closed or failed first (TLS: see
     *                                         {@link #closedByPeer})
     */
    static Socket read(Socket socket, int timeoutMillis) throws IOException {
        socket.setSoTimeout(timeoutMillis);
        if (socket instanceof SSLSocket tls) {
            tls.startHandshake();
        }
        DataInputStream in = new DataInputStream(socket.getInputStream()); // unbuffered: reads no byte past the handshake
        byte[] header = new byte[HEADER_SIZE];
        in.readFully(header);
        if (!Arrays.equals(COOKIE, 0, COOKIE.length, header, 0, COOKIE.length)) {
            throw new NotAHandshake("not JGroups' cookie (" + hex(header, COOKIE.length) + ")");
        }
        short version = (short) (((header[4] & 0xff) << 8) | (header[5] & 0xff));
        if (!Version.isBinaryCompatible(version)) {
            throw new NotAHandshake("JGroups version " + Version.print(version) + ", not compatible with this node's "
                    + Version.printVersion());
        }
        int length = ((header[6] & 0xff) << 8) | (header[7] & 0xff);
        if (length < MIN_ADDRESS_SIZE || length > MAX_ADDRESS_SIZE) {
            throw new NotAHandshake("an address of " + length + " bytes");
        }
        byte[] handshake = Arrays.copyOf(header, HEADER_SIZE + length);
        in.readFully(handshake, HEADER_SIZE, length);
        checkAddress(handshake, length);
        socket.setSoTimeout(0);
        return new PrereadSocket(socket, handshake);
    }

    /** The address parses, and to exactly its announced length: JGroups reads neither less nor more of it. */
    private static void checkAddress(byte[] handshake, int length) throws NotAHandshake {
        ByteArrayInputStream bytes = new ByteArrayInputStream(handshake, HEADER_SIZE, length);
        try {
            new IpAddress().readFrom(new DataInputStream(bytes));
        } catch (IOException | RuntimeException e) {
            throw new NotAHandshake("an address that does not parse (" + e.getMessage() + ")");
        }
        if (bytes.available() != 0) {
            throw new NotAHandshake("an address shorter than the " + length + " bytes announced");
        }
    }

    /**
     * Whether a TLS failure is the peer going away during the handshake (a closed or reset connection: a port check, a
     * probe) rather than a handshake that failed.
     */
    static boolean closedByPeer(javax.net.ssl.SSLException e) {
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            if (cause instanceof java.io.EOFException || cause instanceof java.net.SocketException) {
                return true;
            }
        }
        return false;
    }

    private static String hex(byte[] bytes, int count) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < count; i++) {
            text.append(String.format("%02x", bytes[i]));
        }
        return text.toString();
    }
}
