package io.sessionrep.transport.jgroups;

import org.jgroups.JChannel;

import java.util.concurrent.TimeUnit;

/**
 * Closes a JGroups channel on a thread of its own and waits for it a bounded time, so that a node's stop cannot hang
 * on it: leaving the view waits for the coordinator (bounded by GMS), but closing the TCP connections can wait for a
 * write stuck on a peer that no longer reads (a partition), with no bound of JGroups'. Past the bound the stop goes
 * on and says so; the closing thread is a daemon, so it keeps no JVM alive, and it finishes the close whenever the
 * write fails.
 */
final class BoundedClose {

    private static final System.Logger LOG = System.getLogger(BoundedClose.class.getName());

    private BoundedClose() {
    }

    /** Closes {@code channel}; true if that ended within {@code millis}. */
    static boolean close(JChannel channel, String nodeName, long millis) {
        Thread closer = new Thread(() -> {
            try {
                channel.close();
            } catch (RuntimeException | Error e) {
                LOG.log(System.Logger.Level.WARNING, nodeName + ": closing the JGroups channel failed", e);
            }
        }, "sessionrep-channel-close-" + nodeName);
        closer.setDaemon(true);
        closer.setContextClassLoader(BoundedClose.class.getClassLoader()); // never pins a web application's loader
        long started = System.nanoTime();
        closer.start();
        try {
            closer.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the stop goes on; the close finishes on its own thread
        }
        if (closer.isAlive()) {
            LOG.log(System.Logger.Level.WARNING, "{0}: the JGroups channel did not close within {1} ms; the stop goes"
                    + " on without waiting for it (its threads are daemons and keep no JVM alive)", nodeName, millis);
            return false;
        }
        LOG.log(System.Logger.Level.DEBUG, "{0}: channel closed in {1} ms", nodeName,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        return true;
    }
}
