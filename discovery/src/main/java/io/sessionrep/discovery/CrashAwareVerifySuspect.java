package io.sessionrep.discovery;

import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.stack.IpAddress;
import org.jgroups.protocols.VERIFY_SUSPECT2;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import javax.net.ssl.SSLSocket;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * VERIFY_SUSPECT2 that confirms a suspect at once when its process is shown to be gone: the suspect's TCP
 * transport port refuses a connection. A process killed with {@code kill -9}, or one that crashed, has its
 * listening socket closed by its kernel, which then answers every connection attempt with a reset; a live
 * member's port accepts, even while the process hangs (its kernel completes the handshake), and a member
 * behind a partition or on a machine that is gone does not answer at all. Only a refusal confirms; after an
 * accepted connection, a time-out or any other failure the port is probed again a few times while the suspicion
 * is open ({@link #FIRST_REPROBE_DELAY_MS}: a process being killed may still hold its listening socket when the
 * connection that raised the suspicion has closed), and failing a refusal the suspect is left to the usual
 * verification (no answer to "are you dead?" within the timeout). Without this a killed member stayed in the view for
 * 1.1 to 2.0 s (the verification's 1 s, checked once a second), and requests for its sessions waited that
 * long for the view that lets a backup take them over.
 *
 * <p>For TCP transports only: over UDP there is no listening TCP port, and every probe would be refused.
 * The probe runs on the timer's threads, never on the thread that raised the suspicion, and opens its
 * socket with the transport's socket factory (with TLS it completes a handshake with this node's key); a
 * live suspect's server then sees a connection that closes before saying who it is, which it logs at DEBUG
 * ({@link CrashedPeerCloseLog}).
 */
public final class CrashAwareVerifySuspect extends VERIFY_SUSPECT2 {

    /** How long a probe waits for the suspect's port to accept or refuse. */
    static final int PROBE_TIMEOUT_MS = 500;

    /**
     * How long after a probe that was not refused the next one starts; the wait doubles each time (50, 100, 200,
     * 400 ms). A dying process's kernel closes its sockets one by one, so the connection another member watched can
     * close before the listening port does, and the first probe then still connects. None once the suspect is settled
     * (it answered, was removed, or its verification timed out).
     */
    static final long FIRST_REPROBE_DELAY_MS = 50;

    /** At most this many probes per suspicion (a live member's server sees each as a connection closed early). */
    public static final int MAX_PROBES = 5;

    private final LongAdder confirmedByRefusal = new LongAdder();

    /** Takes VERIFY_SUSPECT2's protocol id: its messages are VERIFY_SUSPECT2's, so it talks to plain VERIFY_SUSPECT2. */
    public CrashAwareVerifySuspect() {
        setId(ClassConfigurator.getProtocolId(VERIFY_SUSPECT2.class));
    }

    @Override
    protected void verifySuspect(Collection<Address> members) {
        super.verifySuspect(members); // asks each "are you dead?" and starts its timeout
        if (members == null) {
            return;
        }
        for (Address member : members) {
            Object physical = down_prot.down(new Event(Event.GET_PHYSICAL_ADDRESS, member));
            if (physical instanceof IpAddress ip) {
                try {
                    getTransport().getTimer().execute(() -> probe(member, ip, 0));
                } catch (RuntimeException e) { // a full or stopping pool: the timeout still verifies it
                    log.debug("%s: could not probe suspect %s: %s", local_addr, member, e);
                }
            }
        }
    }

    /** Probes once; unless refused, probes again later while the member is still a suspect. */
    private void probe(Address member, IpAddress port, int attempt) {
        String outcome = connect(port);
        if (outcome == null) {
            if (removeSuspect(member)) { // false: it answered, or a view removed it meanwhile
                confirmedByRefusal.increment();
                log.info("%s: suspect %s refuses connections at %s: its process is gone; removed without waiting %d ms "
                        + "for an answer", local_addr, member, port, getTimeout());
                up_prot.up(new Event(Event.SUSPECT, List.of(member)));
            }
            return;
        }
        if (attempt + 1 < MAX_PROBES && isSuspect(member)) {
            long delay = FIRST_REPROBE_DELAY_MS << attempt;
            log.debug("%s: suspect %s %s at %s; probing again in %d ms", local_addr, member, outcome, port, delay);
            try {
                getTransport().getTimer().schedule(() -> probe(member, port, attempt + 1), delay, TimeUnit.MILLISECONDS);
                return;
            } catch (RuntimeException e) { // a stopping timer: the timeout still verifies it
                log.debug("%s: could not probe suspect %s again: %s", local_addr, member, e);
            }
        }
        if (isSuspect(member)) {
            log.info("%s: suspect %s %s at %s after %d probes; verifying it as usual (no answer within %d ms)",
                    local_addr, member, outcome, port, attempt + 1, getTimeout());
        }
    }

    /**
     * Connects to the suspect's transport port (with the transport's own socket factory: with TLS the probe completes
     * a handshake with this node's key, so that a live member's server sees a peer that closed before saying who it
     * is, not a failed handshake). Null if the port refused the connection, else what happened instead.
     */
    private String connect(IpAddress port) {
        try (Socket socket = getTransport().getSocketFactory().createSocket("sessionrep.suspect-probe")) {
            socket.connect(new InetSocketAddress(port.getIpAddress(), port.getPort()), PROBE_TIMEOUT_MS);
            if (socket instanceof SSLSocket tls) {
                tls.setSoTimeout(PROBE_TIMEOUT_MS);
                tls.startHandshake();
            }
            return "still accepts connections";
        } catch (ConnectException e) {
            return refused(e) ? null : "could not be probed (" + e + ")";
        } catch (IOException | RuntimeException e) {
            return "could not be probed (" + e + ")";
        }
    }

    /** Whether the member waits for its verification (not answered, not removed, not timed out yet). */
    private synchronized boolean isSuspect(Address member) {
        return suspects.stream().anyMatch(entry -> entry.suspect().equals(member));
    }

    /** A reset from the suspect's machine, not a time-out of the operating system's connect. */
    private static boolean refused(ConnectException e) {
        String message = e.getMessage();
        return message != null && message.toLowerCase(java.util.Locale.ROOT).contains("refused");
    }

    /** How many suspects were confirmed by a refused connection instead of the timeout. */
    public long confirmedByRefusal() {
        return confirmedByRefusal.sum();
    }
}
