package io.sessionrep.testservlet.dist;

import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A Tomcat 11 server in its own JVM for the mixed-cluster IT: {@code TomcatNode <http-port> <war> <work-dir>}
 * deploys the WAR at {@value Distribution#CONTEXT} and serves until killed. It knows nothing of sessionrep:
 * the WAR brings the filter (web.xml + WEB-INF/lib), options come as {@code -Dsessionrep.*}.
 */
public final class TomcatNode {
    public static final String STARTED = "TOMCAT NODE STARTED";

    private TomcatNode() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Path war = Path.of(args[1]).toAbsolutePath();
        Path work = Path.of(args[2]).toAbsolutePath();
        Files.createDirectories(work.resolve("webapps"));
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(work.toString());
        tomcat.setPort(port);
        tomcat.getConnector();
        tomcat.setAddDefaultWebXmlToWebapp(false); // no JSP servlet (Jasper is not here); the WAR's web.xml only
        tomcat.getHost().setAppBase(work.resolve("webapps").toString());
        Context context = tomcat.addWebapp(Distribution.CONTEXT, war.toString());
        tomcat.start();
        if (!context.getState().isAvailable()) {
            System.out.println("context " + Distribution.CONTEXT + " did not start: " + context.getState());
            System.exit(2);
        }
        System.out.println(STARTED + " on port " + port);
        tomcat.getServer().await();
    }
}
