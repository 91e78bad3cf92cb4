package io.sessionrep.testservlet.filter;

/** {@link FilterReplicationTest}: the filter in embedded Jetty 12.1 (ee10), a context without a session handler. */
class JettyFilterReplicationTest extends FilterReplicationTest {

    @Override
    FilterNode.Container container() {
        return FilterNode.JETTY;
    }
}
