package io.sessionrep.discovery;

import org.jgroups.Message;
import org.jgroups.protocols.PerDestinationBundler;

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
