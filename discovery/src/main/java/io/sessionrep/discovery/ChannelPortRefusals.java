package io.sessionrep.discovery;

import io.sessionrep.core.WarningInterval;
import org.jgroups.logging.Log;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Connections to the channel port that {@link HandshakeGate} closed before JGroups saw them, counted by reason and
 * reported in one warning a minute at most (each warning gives the number refused since the one before, the first
 * comes with the first refusal). Reasons:
 * <ul>
 *   <li>{@value #SILENT}: no complete handshake within the gate's time-out (nothing sent, or too little), or pushed
 *       out by newer connections while the gate held as many as it holds;</li>
 *   <li>{@value #BAD_HANDSHAKE}: bytes that are not a JGroups handshake this node can read (another cookie, an
 *       incompatible JGroups version, an address that does not parse), or, with TLS, a TLS handshake that failed (no
 *       certificate, one the trust store does not accept, no TLS at all).</li>
 * </ul>
 * A connection its peer closed before its handshake (a port check, {@link CrashAwareVerifySuspect}'s probe) held
 * nothing up and is not a refusal: it is logged at DEBUG only.
 */
public final class ChannelPortRefusals {

    /** The reason of connections that said too little in time. */
    public static final String SILENT = "silent-connection";
    /** The reason of connections whose first bytes are not a JGroups handshake, or whose TLS handshake failed. */
    public static final String BAD_HANDSHAKE = "bad-handshake";

    static final Duration REPORT_INTERVAL = Duration.ofMinutes(1);

    private final Log log;
    private final LongAdder silent = new LongAdder();
    private final LongAdder badHandshakes = new LongAdder();
    private final WarningInterval reports = new WarningInterval(REPORT_INTERVAL);
    /** Refusals (both reasons) already included in a warning. */
    private final AtomicLong reported = new AtomicLong();

    /** @param log where the warnings go: the transport protocol's log, which JGroups' TCP server writes to as well */
    ChannelPortRefusals(Log log) {
        this.log = log;
    }

    /** Connections refused as {@value #SILENT} so far. */
    public long silentConnections() {
        return silent.sum();
    }

    /** Connections refused as {@value #BAD_HANDSHAKE} so far. */
    public long badHandshakes() {
        return badHandshakes.sum();
    }

    void silent(Object from, String why) {
        silent.increment();
        report(from, why);
    }

    void badHandshake(Object from, String why) {
        badHandshakes.increment();
        report(from, why);
    }

    private void report(Object from, String why) {
        if (!reports.due()) {
            log.debug("refused a connection to the channel port from %s: %s", from, why);
            return;
        }
        long silentNow = silent.sum();
        long badNow = badHandshakes.sum();
        long since = silentNow + badNow - reported.getAndSet(silentNow + badNow);
        log.warn("refused %d connection(s) to the channel port since the last report (%d in all: %d %s, %d %s); the"
                        + " latest from %s: %s. Members and joining nodes are not held up by them. Counted in"
                        + " sessionrep.transport.refused{reason=%s|%s}; the next report comes a minute from now at the"
                        + " earliest", since, silentNow + badNow, silentNow, SILENT, badNow, BAD_HANDSHAKE, from, why,
                SILENT, BAD_HANDSHAKE);
    }
}
