package io.sessionrep.testservlet.filter;

import io.sessionrep.core.filter.ReplicationFilter;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** The filter's contract in embedded Tomcat 11: a context whose own session manager is never used. */
class FilterInEmbeddedTomcatTest extends FilterContractTest {

    @Override
    Node start(String name, Map<String, String> filterParameters) throws Exception {
        Path work = Files.createTempDirectory("tomcat-" + name);
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(work.toString());
        tomcat.setHostname("127.0.0.1");
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        Context context = tomcat.addContext("", work.toString());
        context.addParameter("node", name);
        Wrapper probe = Tomcat.addServlet(context, "probe", new ProbeServlet());
        probe.setAsyncSupported(true);
        context.addServletMappingDecoded("/probe", "probe");
        Tomcat.addServlet(context, "ready", new io.sessionrep.core.health.ReadinessServlet());
        context.addServletMappingDecoded("/ready", "ready");
        FilterDef filter = new FilterDef();
        filter.setFilterName("sessionrep");
        filter.setFilterClass(ReplicationFilter.class.getName());
        filter.setAsyncSupported("true");
        filterParameters.forEach(filter::addInitParameter);
        context.addFilterDef(filter);
        FilterMap mapping = new FilterMap();
        mapping.setFilterName("sessionrep");
        mapping.addURLPattern("/*");
        context.addFilterMap(mapping);
        tomcat.start();
        if (!context.getState().isAvailable()) {
            tomcat.stop();
            throw new IllegalStateException("Tomcat context of " + name + " did not start: " + context.getState());
        }
        return new Node() {
            @Override
            public int port() {
                return tomcat.getConnector().getLocalPort();
            }

            @Override
            public void stop() throws Exception {
                tomcat.stop();
                tomcat.destroy();
            }
        };
    }
}
