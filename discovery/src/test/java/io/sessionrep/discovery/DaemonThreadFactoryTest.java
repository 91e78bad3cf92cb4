package io.sessionrep.discovery;

import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.ReplicationConfig;
import org.jgroups.protocols.TP;
import org.jgroups.stack.Protocol;
import org.jgroups.util.LazyThreadFactory;
import org.jgroups.util.Runner;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DaemonThreadFactoryTest {

    /** JGroups' Runner (the bundler's senders) sets a plain Thread back to non-daemon: JGroups' own factory loses. */
    @Test
    void threadsOfJGroupsRunnersStayDaemons() throws Exception {
        assertFalse(runnerThreadIsDaemon(new LazyThreadFactory("jgroups", true, true)),
                "JGroups 5.5's Runner makes a plain thread non-daemon whatever its factory chose");
        assertTrue(runnerThreadIsDaemon(new DaemonThreadFactory()));
    }

    @Test
    void namesThreadsAsJGroupsDoes() {
        DaemonThreadFactory factory = new DaemonThreadFactory();
        factory.setPattern("cl");
        factory.setClusterName("shop");
        factory.setAddress("node-a");
        Thread thread = factory.newThread(() -> { }, "pd-bundler");
        assertTrue(thread.isDaemon());
        assertTrue(thread.getName().matches("pd-bundler-\\d+,shop,node-a"), thread.getName());
    }

    @Test
    void renamesAThreadMadeBeforeTheChannelKnewItsClusterAndAddress() {
        DaemonThreadFactory factory = new DaemonThreadFactory();
        factory.setPattern("cl");
        Thread early = factory.newThread(() -> { }, "Timer runner");
        factory.setClusterName("shop");
        factory.setAddress("node-a");
        assertTrue(early.getName().matches("Timer runner-\\d+,shop,node-a"), early.getName());
    }

    @Test
    void everyGeneratedStackUsesIt() {
        for (DiscoveryMode mode : List.of(DiscoveryMode.STATIC, DiscoveryMode.MULTICAST)) {
            List<Protocol> stack = JGroupsStacks.build(ReplicationConfig.builder().nodeName("a")
                    .clusterName("c").discovery(mode).bindAddress("127.0.0.1").build());
            TP transport = (TP) stack.get(0);
            assertInstanceOf(DaemonThreadFactory.class, transport.getThreadFactory(), mode.toString());
        }
    }

    @Test
    void aJGroupsConfigStackUsesItToo() throws Exception {
        java.nio.file.Path example = java.nio.file.Path.of("..", "docs", "jgroups-tcp.xml").toAbsolutePath().normalize();
        try (org.jgroups.JChannel channel = JGroupsStacks.channel(
                ReplicationConfig.builder().nodeName("a").jgroupsConfig(example.toString()).build())) {
            assertInstanceOf(DaemonThreadFactory.class, channel.getProtocolStack().getTransport().getThreadFactory());
        }
    }

    private static boolean runnerThreadIsDaemon(org.jgroups.util.ThreadFactory factory) throws InterruptedException {
        CountDownLatch ran = new CountDownLatch(1);
        boolean[] daemon = new boolean[1];
        Runner runner = new Runner(factory, "probe", () -> {
            daemon[0] = Thread.currentThread().isDaemon();
            ran.countDown();
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, null);
        runner.start();
        try {
            assertTrue(ran.await(5, TimeUnit.SECONDS));
            return daemon[0];
        } finally {
            runner.stop();
        }
    }
}
