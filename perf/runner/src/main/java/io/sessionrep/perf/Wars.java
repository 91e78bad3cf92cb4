package io.sessionrep.perf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * The two WARs of the Tomcat configurations, derived from test-servlet's {@code session-test.war} (classes
 * unchanged):
 * <ul>
 *   <li>{@link #distributable}: {@code <distributable/>} added to web.xml (Tomcat's cluster managers are used
 *       only for a distributable application; StandardManager and ours ignore the flag), the WAR of every
 *       configuration but Redis;</li>
 *   <li>{@link #springSession}: the same plus Spring Session (a {@code ContextLoaderListener} for
 *       {@code RedisSessionConfig} and the {@code springSessionRepositoryFilter} in front of the servlet)
 *       and its jars in WEB-INF/lib, as Spring Session's documentation for a web.xml application says;</li>
 *   <li>{@link #floor}: the same as {@link #distributable} plus perf-floor's listener and filter (the floor
 *       configurations, which keep StandardManager) and its jar in WEB-INF/lib.</li>
 * </ul>
 */
public final class Wars {

    static final String SPRING_SESSION_XML = """
              <!-- Spring Session with Redis (perf runner): the filter wraps every request's session -->
              <context-param>
                <param-name>contextClass</param-name>
                <param-value>org.springframework.web.context.support.AnnotationConfigWebApplicationContext</param-value>
              </context-param>
              <context-param>
                <param-name>contextConfigLocation</param-name>
                <param-value>io.sessionrep.perf.springsession.RedisSessionConfig</param-value>
              </context-param>
              <listener>
                <listener-class>org.springframework.web.context.ContextLoaderListener</listener-class>
              </listener>
              <filter>
                <filter-name>springSessionRepositoryFilter</filter-name>
                <filter-class>org.springframework.web.filter.DelegatingFilterProxy</filter-class>
              </filter>
              <filter-mapping>
                <filter-name>springSessionRepositoryFilter</filter-name>
                <url-pattern>/*</url-pattern>
                <dispatcher>REQUEST</dispatcher>
                <dispatcher>ERROR</dispatcher>
              </filter-mapping>
            """;

    static final String FLOOR_XML = """
              <!-- the floor (perf runner): each request's changes copied over a plain socket at its end -->
              <listener>
                <listener-class>io.sessionrep.perf.floor.FloorListener</listener-class>
              </listener>
              <filter>
                <filter-name>floor</filter-name>
                <filter-class>io.sessionrep.perf.floor.FloorFilter</filter-class>
              </filter>
              <filter-mapping>
                <filter-name>floor</filter-name>
                <url-pattern>/*</url-pattern>
                <dispatcher>REQUEST</dispatcher>
              </filter-mapping>
            """;

    private Wars() {
    }

    /** {@code war} with {@code <distributable/>}, written to {@code target}. */
    public static Path distributable(Path war, Path target) throws IOException {
        return rewrite(war, target, "", List.of());
    }

    /** {@code war} with {@code <distributable/>}, Spring Session's filter and {@code jars} in WEB-INF/lib. */
    public static Path springSession(Path war, List<Path> jars, Path target) throws IOException {
        return rewrite(war, target, SPRING_SESSION_XML, jars);
    }

    /** {@code war} with {@code <distributable/>}, the floor's listener and filter, and {@code floorJar} in WEB-INF/lib. */
    public static Path floor(Path war, Path floorJar, Path target) throws IOException {
        return rewrite(war, target, FLOOR_XML, List.of(floorJar));
    }

    private static Path rewrite(Path war, Path target, String beforeServlet, List<Path> jars) throws IOException {
        Files.createDirectories(target.getParent());
        boolean edited = false;
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(war));
             ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(target))) {
            for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
                out.putNextEntry(new ZipEntry(e.getName()));
                byte[] bytes = in.readAllBytes();
                if (e.getName().equals("WEB-INF/web.xml")) {
                    bytes = webXml(new String(bytes, StandardCharsets.UTF_8), beforeServlet).getBytes(StandardCharsets.UTF_8);
                    edited = true;
                }
                out.write(bytes);
                out.closeEntry();
            }
            for (Path jar : jars) {
                out.putNextEntry(new ZipEntry("WEB-INF/lib/" + jar.getFileName()));
                Files.copy(jar, out);
                out.closeEntry();
            }
        }
        if (!edited) {
            throw new IOException(war + " has no WEB-INF/web.xml");
        }
        return target;
    }

    static String webXml(String webXml, String beforeServlet) {
        int servlet = webXml.indexOf("<servlet>");
        if (servlet < 0 || webXml.contains("<distributable")) {
            throw new IllegalArgumentException("unexpected web.xml of session-test.war (no <servlet>, or distributable already)");
        }
        int lineStart = webXml.lastIndexOf('\n', servlet) + 1;
        return webXml.substring(0, lineStart) + "  <distributable/>\n\n" + beforeServlet + webXml.substring(lineStart);
    }
}
