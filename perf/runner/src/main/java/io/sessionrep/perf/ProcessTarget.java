package io.sessionrep.perf;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Nodes started from command lines of our own (PerfNode), one after the other. */
final class ProcessTarget implements Target {

    record NodeSpec(String name, List<String> command) {
    }

    private final List<ServerProcess> nodes = new ArrayList<>();
    private final List<String> hosts = new ArrayList<>();
    private final Runnable afterClose;
    private final boolean orderlyStop;
    private boolean closed;

    private ProcessTarget(Runnable afterClose, boolean orderlyStop) {
        this.afterClose = afterClose;
        this.orderlyStop = orderlyStop;
    }

    /**
     * @param together start every node before awaiting any (Tomcat's nodes are READY only once they see
     *                 each other); otherwise one by one, each after the previous is READY (a JGroups node
     *                 then joins the existing cluster instead of founding one and merging later)
     */
    static ProcessTarget start(List<NodeSpec> specs, Path logDir, boolean together, boolean orderlyStop,
                               Runnable afterClose) throws Exception {
        ProcessTarget target = new ProcessTarget(afterClose, orderlyStop);
        try {
            for (NodeSpec spec : specs) {
                ServerProcess node = ServerProcess.start(spec.name(), spec.command(), logDir.resolve(spec.name() + ".log"));
                target.nodes.add(node);
                if (!together) {
                    target.awaitReady(node);
                }
            }
            if (together) {
                for (ServerProcess node : target.nodes) {
                    target.awaitReady(node);
                }
            }
            // the last node to start saw the others when it was READY; give them a moment to see it too
            Thread.sleep(2_000);
        } catch (Exception | Error e) {
            target.close();
            throw e;
        }
        return target;
    }

    private void awaitReady(ServerProcess node) throws InterruptedException {
        String url = node.awaitReady(Duration.ofSeconds(90));
        System.out.println("[" + node.name() + "] READY " + url);
        hosts.add(URI.create(url).getAuthority());
    }

    @Override
    public List<Long> pids() {
        return nodes.stream().map(ServerProcess::pid).toList();
    }

    @Override
    public List<String> hosts() {
        return List.copyOf(hosts);
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (ServerProcess node : nodes) {
            if (orderlyStop) {
                node.stop();
            }
            node.close();
        }
        nodes.clear();
        if (afterClose != null) {
            afterClose.run();
        }
    }
}
