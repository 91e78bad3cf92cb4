package io.sessionrep.perf.node;

import org.jgroups.Message;
import org.jgroups.stack.Protocol;

import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Emulated network latency for JGroups: every message sent down through this protocol reaches the
 * protocol below (the transport) {@code delay} later, in the order it was sent, without blocking the
 * sender. One scheduler thread that sleeps until the next message is due.
 *
 * <p>Why not JGroups' own {@code DELAY} ({@code out_delay_nanos}): in 5.5.7 its sending thread polls its
 * queue without blocking; the first full run measured that thread at 86 % of the node's CPU samples on
 * this 2-core machine, which would charge the "distributed" configuration for CPU that no network costs.
 */
final class ConstantDelay extends Protocol {

    private final long delayNanos;
    private ScheduledExecutorService sender;

    ConstantDelay(long delayNanos) {
        this.delayNanos = delayNanos;
    }

    @Override
    public void init() throws Exception {
        super.init();
        sender = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "net-delay");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public Object down(Message msg) {
        try {
            sender.schedule(() -> down_prot.down(msg), delayNanos, TimeUnit.NANOSECONDS);
            return null;
        } catch (RejectedExecutionException e) {
            return down_prot.down(msg); // destroyed while the channel closes: goodbyes go out undelayed
        }
    }

    @Override
    public void destroy() {
        if (sender != null) {
            sender.shutdownNow();
        }
        super.destroy();
    }
}
