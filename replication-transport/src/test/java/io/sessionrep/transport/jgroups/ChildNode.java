package io.sessionrep.transport.jgroups;

import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;

import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A node in its own JVM, for tests that kill a process: {@code ChildNode name cluster port peerPort [echo]}.
 * Its receiver never answers requests (it parks the delivering thread), so a request to it stays pending
 * until the node is gone; with {@code echo} it answers each request with its own bytes and sends nothing
 * else. It runs until killed.
 */
public final class ChildNode {

    private ChildNode() {
    }

    public static void main(String[] args) throws Exception {
        ReplicationConfig config = ReplicationConfig.builder().nodeName(args[0]).machineId(args[0] + "-host")
                .clusterName(args[1]).discovery(DiscoveryMode.STATIC).bindAddress(TestNodes.LOOPBACK)
                .bindPort(Integer.parseInt(args[2]))
                .peers(List.of(new HostPort(TestNodes.LOOPBACK, Integer.parseInt(args[3])))).build();
        CountDownLatch never = new CountDownLatch(1);
        JGroupsTransport transport = new JGroupsTransport(config);
        boolean echo = args.length > 4 && args[4].equals("echo");
        transport.start(echo ? new RecordingReceiver() : new RecordingReceiver().answering((sender, message) -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }));
        System.out.println("READY " + transport.members());
        never.await();
    }
}
