package io.sessionrep.core.health;

/**
 * The JMX view of a node's {@link io.sessionrep.core.Readiness}, one MBean per replicating web application while
 * its meters are exported to JMX ({@code metrics=jmx}, the default):
 * {@code sessionrep:cluster=<cluster-name>,context=<context path>,node=<node-name>,type=readiness}.
 */
public interface ReadinessMBean {

    /** Attribute {@code Ready}: whether the node is settled in its cluster now. */
    boolean isReady();

    /** Attribute {@code NotReadyReasons}: empty when ready, else the reasons, separated by {@code "; "}. */
    String getNotReadyReasons();
}
