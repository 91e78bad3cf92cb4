package io.sessionrep.discovery;

import org.jgroups.Message;
import org.jgroups.protocols.PerDestinationBundler;
import org.jgroups.util.ByteArrayDataOutputStream;

/**
 * JGroups' per-destination bundler (one sender thread per destination, as {@link IsolatingTcp} runs it) that starts
 * no sender thread once it was stopped.
 *
 * <p>JGroups 5.5.7's bundler stops the senders it has and forgets them; a message sent after that (an
 * acknowledgement or a discovery answer of a thread still handling what arrived before the connections closed, a
 * send that had waited for flow-control credits) creates a new sender whose thread waits for messages forever:
 * nothing stops it any more. Seen on every close of a node under load (two such threads per close, still alive
 * after the channel had closed); they kept Tomcat's JVM alive after {@code catalina.sh stop}. Here a message sent
 * while stopped is dropped (the connections are closed by then), and a sender created while the bundler was
 * stopping is stopped by the sending thread itself.
 *
 * <p>A unicast flagged {@link Message.Flag#DONT_BUNDLE} is written by the sending thread itself, alone in its frame,
 * instead of being queued for the destination's sender thread: the flag's meaning in earlier JGroups releases, which
 * 5.5's bundlers no longer read. A sync update thereby reaches the socket without waking a thread. It may overtake
 * regular messages to the same destination still queued here; UNICAST3 delivers them in their order all the same
 * (it numbers them above the transport and holds a later one until the earlier ones arrived).
 */
public class StopAwareBundler extends PerDestinationBundler {

    private volatile boolean stopped;

    @Override
    public void start() {
        stopped = false;
        super.start();
    }

    @Override
    public void stop() {
        stopped = true; // before the senders are stopped: a sender created after this is seen by doSend below
        super.stop();
    }

    @Override
    public void send(Message msg) throws Exception {
        if (msg.isFlagSet(Message.Flag.DONT_BUNDLE) && msg.dest() != null && !stopped) {
            if (msg.getSrc() == null) {
                msg.setSrc(local_addr);
            }
            sendSingle(msg.dest(), msg, new ByteArrayDataOutputStream(msg.size() + FRAME_OVERHEAD));
            return;
        }
        super.send(msg);
    }

    /** Room for what JGroups writes around one message in a frame (version, flags, cluster name). */
    private static final int FRAME_OVERHEAD = 64;

    @Override
    public void doSend(Message msg) throws Exception {
        if (stopped) {
            return;
        }
        super.doSend(msg); // may create and start a sender for a new destination
        if (stopped) { // stop() ran meanwhile and may have missed that sender: stop it (and any other) here
            dests.values().forEach(SendBuffer::stop);
            dests.clear();
        }
    }
}
