package io.sessionrep.jetty;

import org.eclipse.jetty.session.AbstractSessionCacheFactory;
import org.eclipse.jetty.session.SessionCache;
import org.eclipse.jetty.session.SessionManager;

/**
 * Makes a {@link ReplicatedSessionCache} for every context of a server that has this factory as a bean
 * (Jetty XML / module installs; {@link ReplicatedSessions#install} wires one context directly). Use it
 * together with a {@link ReplicatedSessionDataStoreFactory}. {@code flushOnResponseCommit} defaults to
 * true here, unlike Jetty's other cache factories; see {@link ReplicatedSessionCache}.
 */
public class ReplicatedSessionCacheFactory extends AbstractSessionCacheFactory {

    public ReplicatedSessionCacheFactory() {
        setFlushOnResponseCommit(true);
    }

    @Override
    public SessionCache newSessionCache(SessionManager manager) {
        return new ReplicatedSessionCache(manager);
    }
}
