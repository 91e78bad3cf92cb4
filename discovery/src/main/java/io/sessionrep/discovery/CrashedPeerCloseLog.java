package io.sessionrep.discovery;

import org.jgroups.logging.Log;

/**
 * The TCP server's log, with two messages about a peer that went away taken down to DEBUG:
 * <ul>
 *   <li>{@code failed sending graceful close to <peer>: Broken pipe} (from ERROR). JGroups' connection reader
 *       closes its connection when the peer's side ends, and first writes a goodbye marker to it. When the peer
 *       was killed (kill -9, a crash, a lost machine), its kernel has reset the connection, the write fails, and
 *       JGroups logged that at ERROR, which Tomcat shows as SEVERE, on every member, for an event the cluster
 *       already handles (the member is suspected and removed from the view, and its sessions are taken over).
 *       The connection is closed either way.</li>
 *   <li>{@code failed accepting connection from peer <peer>: java.io.EOFException} (from WARN): a connection that
 *       closed before it said who it is (with TLS, after a completed handshake). A suspecting member's probe does
 *       exactly that to a member that is alive ({@link CrashAwareVerifySuspect}), as do port checks (since the
 *       channel port's {@link HandshakeGate} hands JGroups only complete handshakes, the gate sees such connections
 *       close and logs them at DEBUG itself; this stays for a connection that closes in between). Any other
 *       failure to accept (a wrong cookie or version: bytes that are not JGroups'; a failed TLS handshake, which
 *       JGroups reports as {@code Socket is closed}) keeps its warning.</li>
 * </ul>
 * Every other message passes unchanged.
 */
final class CrashedPeerCloseLog implements Log {

    /** How JGroups' {@code TcpConnection.closeGracefully} words the failure (JGroups 5.5). */
    static final String GRACEFUL_CLOSE_FAILURE = "%s: failed sending graceful close to %s: %s";

    /** JGroups' message key AcceptError ({@code TcpServer.Acceptor}), the same in every language it ships. */
    static final String ACCEPT_FAILURE_CODE = "JGRP000006:";

    private final Log delegate;

    CrashedPeerCloseLog(Log delegate) {
        this.delegate = delegate;
    }

    @Override
    public void error(String format, Object... args) {
        if (GRACEFUL_CLOSE_FAILURE.equals(format)) {
            delegate.debug(format, args);
        } else {
            delegate.error(format, args);
        }
    }

    @Override public boolean isFatalEnabled() { return delegate.isFatalEnabled(); }
    @Override public boolean isErrorEnabled() { return delegate.isErrorEnabled(); }
    @Override public boolean isWarnEnabled() { return delegate.isWarnEnabled(); }
    @Override public boolean isInfoEnabled() { return delegate.isInfoEnabled(); }
    @Override public boolean isDebugEnabled() { return delegate.isDebugEnabled(); }
    @Override public boolean isTraceEnabled() { return delegate.isTraceEnabled(); }
    @Override public void fatal(String msg) { delegate.fatal(msg); }
    @Override public void fatal(String format, Object... args) { delegate.fatal(format, args); }
    @Override public void fatal(String msg, Throwable throwable) { delegate.fatal(msg, throwable); }
    @Override public void error(String msg) { delegate.error(msg); }
    @Override public void error(String msg, Throwable throwable) { delegate.error(msg, throwable); }
    @Override public void warn(String msg) { delegate.warn(msg); }
    @Override
    public void warn(String format, Object... args) {
        if (format != null && format.startsWith(ACCEPT_FAILURE_CODE) && args.length > 0
                && closedBeforeSayingWho(args[args.length - 1])) {
            delegate.debug(format, args);
        } else {
            delegate.warn(format, args);
        }
    }

    private static boolean closedBeforeSayingWho(Object failure) {
        return failure instanceof java.io.EOFException;
    }
    @Override public void warn(String msg, Throwable throwable) { delegate.warn(msg, throwable); }
    @Override public void info(String msg) { delegate.info(msg); }
    @Override public void info(String format, Object... args) { delegate.info(format, args); }
    @Override public void debug(String msg) { delegate.debug(msg); }
    @Override public void debug(String format, Object... args) { delegate.debug(format, args); }
    @Override public void debug(String msg, Throwable throwable) { delegate.debug(msg, throwable); }
    @Override public void trace(Object obj) { delegate.trace(obj); }
    @Override public void trace(String msg) { delegate.trace(msg); }
    @Override public void trace(String format, Object... args) { delegate.trace(format, args); }
    @Override public void trace(String msg, Throwable throwable) { delegate.trace(msg, throwable); }
    @Override public void setLevel(String level) { delegate.setLevel(level); }
    @Override public String getLevel() { return delegate.getLevel(); }
}
