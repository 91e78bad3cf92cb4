package io.sessionrep.testservlet.filter;

/** {@link FilterReplicationTest}: the filter in embedded Tomcat 11, whose own session manager is never used. */
class TomcatFilterReplicationTest extends FilterReplicationTest {

    @Override
    FilterNode.Container container() {
        return FilterNode.TOMCAT;
    }
}
