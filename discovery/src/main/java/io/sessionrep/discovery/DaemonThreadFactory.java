package io.sessionrep.discovery;

import org.jgroups.util.DefaultThreadFactory;

import java.lang.ref.WeakReference;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The thread factory of a node's JGroups transport: every thread JGroups creates for the channel (its thread pool,
 * timer, TCP acceptor and connection readers, the per-destination senders of the bundler, FD_SOCK2's server) is a
 * daemon thread, named as JGroups names them ({@code jgroups-12,<cluster>,<node>}).
 *
 * <p>JGroups 5.5's own factory makes non-daemon threads, and its {@code Runner} (the bundler's senders) sets a plain
 * {@code Thread} back to non-daemon whatever the factory chose: only a thread of a subclass keeps the factory's
 * choice, hence {@link JGroupsThread}. A JGroups thread that outlives its channel then can no longer keep the JVM
 * alive after the container stopped: with {@code catalina.sh stop} Tomcat's main thread ends and the JVM exits once
 * no non-daemon thread is left.
 *
 * <p>As JGroups' default factory, a thread made before the channel knows its cluster and address (the timer's) is
 * renamed once it does.
 */
public final class DaemonThreadFactory extends DefaultThreadFactory {

    private final Queue<WeakReference<JGroupsThread>> namedEarly = new ConcurrentLinkedQueue<>();

    public DaemonThreadFactory() {
        super("jgroups", true, true);
    }

    @Override
    protected Thread newThread(Runnable task, String name, String address, String clusterName) {
        JGroupsThread thread = new JGroupsThread(task, name, getThreadName(name, address, clusterName));
        thread.setDaemon(true);
        if (this.address == null || this.clusterName == null) {
            namedEarly.add(new WeakReference<>(thread));
        }
        return thread;
    }

    @Override
    public void setAddress(String address) {
        super.setAddress(address);
        renameEarlyThreads();
    }

    @Override
    public void setClusterName(String clusterName) {
        super.setClusterName(clusterName);
        renameEarlyThreads();
    }

    private void renameEarlyThreads() {
        if (address == null || clusterName == null) {
            return;
        }
        WeakReference<JGroupsThread> ref;
        while ((ref = namedEarly.poll()) != null) {
            JGroupsThread thread = ref.get();
            if (thread != null) {
                thread.setName(getThreadName(thread.baseName, null, null));
            }
        }
    }

    /** A JGroups thread of this factory; a class of its own so that JGroups' {@code Runner} leaves it a daemon. */
    static final class JGroupsThread extends Thread {
        private final String baseName;

        JGroupsThread(Runnable task, String baseName, String name) {
            super(task, name);
            this.baseName = baseName;
        }
    }
}
