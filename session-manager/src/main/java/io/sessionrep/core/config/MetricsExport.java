package io.sessionrep.core.config;

/**
 * {@code metrics}: where a container install (Jetty module, Tomcat {@code <Manager>}, {@code web.xml} filter)
 * exports the node's meters, in addition to any {@code MeterRegistry} an embedding application passes in.
 */
public enum MetricsExport {
    /**
     * MBeans in the platform MBeanServer, domain {@code sessionrep}, one per meter, removed when the web
     * application stops (jconsole, Tomcat's JMX proxy, Jetty's JMX, a JMX exporter agent). The default.
     */
    JMX("jmx"),
    /** No export: meters only reach a registry the embedding application passes in. */
    NONE("none");

    private final String optionValue;

    MetricsExport(String optionValue) {
        this.optionValue = optionValue;
    }

    /** The spelling used in configuration files. */
    public String optionValue() {
        return optionValue;
    }
}
