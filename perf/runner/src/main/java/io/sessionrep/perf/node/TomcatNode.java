package io.sessionrep.perf.node;

import io.sessionrep.testservlet.SessionTestServlet;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.ha.ClusterManager;
import org.apache.catalina.ha.session.BackupManager;
import org.apache.catalina.ha.session.ClusterSessionListener;
import org.apache.catalina.ha.session.DeltaManager;
import org.apache.catalina.ha.tcp.ReplicationValve;
import org.apache.catalina.ha.tcp.SimpleTcpCluster;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.tribes.group.GroupChannel;
import org.apache.catalina.tribes.group.interceptors.MessageDispatchInterceptor;
import org.apache.catalina.tribes.group.interceptors.TcpFailureDetector;
import org.apache.catalina.tribes.membership.StaticMember;
import org.apache.catalina.tribes.membership.StaticMembershipService;
import org.apache.catalina.tribes.transport.nio.NioReceiver;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The same test servlet on embedded Tomcat with Tomcat's OWN session clustering (scenario 6): a
 * {@link SimpleTcpCluster} (Tribes: NIO receiver, pooled parallel sender, TcpFailureDetector,
 * MessageDispatchInterceptor) with static membership on 127.0.0.1, a {@link ReplicationValve} so that
 * sessions replicate at request end, and as manager either
 * <ul>
 *   <li>{@code delta}: {@link DeltaManager}, all-to-all: every node holds every session; Tomcat's
 *       defaults (cluster channelSendOptions 8 = asynchronous);</li>
 *   <li>{@code backup}: {@link BackupManager}, one backup node per session; Tomcat's defaults
 *       (mapSendOptions 6 = synchronized acknowledgement).</li>
 * </ul>
 * Flags: {@code --http-port=N --node-name=NAME --manager=delta|backup --index=I --members=host:port,...}
 * (every member's Tribes receiver, this node's at position I). Prints {@code READY node=<name>
 * http=http://127.0.0.1:<port>/session} once serving and, unless it is the first member (index 0), once it
 * sees every member before it: start the nodes in index order, each after the previous is READY (nodes
 * started together would each wait DeltaManager's 60 s state transfer timeout for the other).
 */
public final class TomcatNode {

    private TomcatNode() {
    }

    public static void main(String[] args) throws Exception {
        int httpPort = 0;
        int index = 0;
        String name = "tomcat";
        String manager = "delta";
        List<String> members = new ArrayList<>();
        for (String arg : args) {
            String value = arg.substring(arg.indexOf('=') + 1);
            if (arg.startsWith("--http-port=")) {
                httpPort = Integer.parseInt(value);
            } else if (arg.startsWith("--node-name=")) {
                name = value;
            } else if (arg.startsWith("--manager=")) {
                manager = value;
            } else if (arg.startsWith("--index=")) {
                index = Integer.parseInt(value);
            } else if (arg.startsWith("--members=")) {
                members.addAll(List.of(value.split(",")));
            } else {
                throw new IllegalArgumentException("unknown flag " + arg);
            }
        }
        Logger.getLogger("").setLevel(Level.WARNING);

        Tomcat tomcat = new Tomcat();
        Path base = Files.createTempDirectory("tomcat-" + name);
        tomcat.setBaseDir(base.toString());
        Connector connector = new Connector("HTTP/1.1");
        connector.setPort(httpPort);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        tomcat.getEngine().setJvmRoute(name);

        Context context = tomcat.addContext("", base.toString());
        context.setDistributable(true);
        context.addParameter(SessionTestServlet.NODE_NAME_PARAMETER, name);
        Tomcat.addServlet(context, "session", new SessionTestServlet());
        context.addServletMappingDecoded("/session", "session");

        SimpleTcpCluster cluster = new SimpleTcpCluster();
        GroupChannel channel = new GroupChannel();
        StaticMembershipService membership = new StaticMembershipService();
        for (int i = 0; i < members.size(); i++) {
            String[] hostPort = members.get(i).split(":");
            StaticMember member = new StaticMember(hostPort[0], Integer.parseInt(hostPort[1]), 0, uniqueId(i));
            if (i == index) {
                membership.setLocalMember(member);
            } else {
                membership.addStaticMember(member);
            }
        }
        channel.setMembershipService(membership);
        NioReceiver receiver = new NioReceiver();
        String[] own = members.get(index).split(":");
        receiver.setAddress(own[0]);
        receiver.setPort(Integer.parseInt(own[1]));
        receiver.setAutoBind(0);
        channel.setChannelReceiver(receiver);
        channel.addInterceptor(new TcpFailureDetector());
        channel.addInterceptor(new MessageDispatchInterceptor());
        cluster.setChannel(channel);
        cluster.addValve(new ReplicationValve());
        cluster.addClusterListener(new ClusterSessionListener());
        ClusterManager template = switch (manager) {
            case "delta" -> new DeltaManager();
            case "backup" -> new BackupManager();
            default -> throw new IllegalArgumentException("--manager: '" + manager + "'; expected delta or backup");
        };
        cluster.setManagerTemplate(template);
        tomcat.getEngine().setCluster(cluster);
        tomcat.start();

        long deadline = System.nanoTime() + 60_000_000_000L;
        while (cluster.getMembers().length < index && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        if (cluster.getMembers().length < index) {
            System.err.println("startup failed: only " + cluster.getMembers().length + " of the " + index
                    + " members started before this one after 60s");
            System.exit(1);
        }
        System.out.println("READY node=" + name + " http=http://127.0.0.1:" + connector.getLocalPort()
                + "/session manager=" + template.getClass().getSimpleName());
        System.out.flush();
        tomcat.getServer().await();
    }

    private static byte[] uniqueId(int index) {
        byte[] id = new byte[16];
        id[0] = 0x53;
        id[15] = (byte) (index + 1);
        return id;
    }
}
