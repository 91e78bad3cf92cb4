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

    /**
     * Starts a child node in a JVM of its own, its output going to {@code log}: {@code name} in {@code cluster} on
     * {@code port}, listing {@code peerPort}; {@code options}: {@code echo}, or none.
     */
    static Process launch(java.nio.file.Path log, String name, String cluster, int port, int peerPort, String... options)
            throws java.io.IOException {
        List<String> command = new java.util.ArrayList<>(List.of(
                System.getProperty("java.home") + java.io.File.separator + "bin" + java.io.File.separator + "java",
                "-Djava.net.preferIPv4Stack=true", "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                ChildNode.class.getName(), name, cluster, String.valueOf(port), String.valueOf(peerPort)));
        command.addAll(List.of(options));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** A child's log, for a failure message. */
    static String read(java.nio.file.Path log) {
        try {
            return java.nio.file.Files.readString(log);
        } catch (Exception e) {
            return "(no log: " + e + ")";
        }
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
