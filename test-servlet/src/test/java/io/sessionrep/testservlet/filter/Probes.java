package io.sessionrep.testservlet.filter;

import jakarta.servlet.http.HttpSessionActivationListener;
import jakarta.servlet.http.HttpSessionAttributeListener;
import jakarta.servlet.http.HttpSessionBindingEvent;
import jakarta.servlet.http.HttpSessionBindingListener;
import jakarta.servlet.http.HttpSessionEvent;
import jakarta.servlet.http.HttpSessionIdListener;
import jakarta.servlet.http.HttpSessionListener;

import java.io.Serializable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Application listeners and attribute values that record what the filter told them (one JVM, all nodes). */
public final class Probes {
    /** "event:node:session" lines, in order. */
    public static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    private Probes() {
    }

    static long count(String event, String session) {
        return EVENTS.stream().filter(e -> e.startsWith(event + ":") && e.endsWith(":" + session)).count();
    }

    static String node(HttpSessionEvent event) {
        return event.getSession().getServletContext().getInitParameter("node");
    }

    /** Named in the filter's session-listeners init-param. */
    public static final class Listener implements HttpSessionListener, HttpSessionAttributeListener,
            HttpSessionIdListener {
        @Override
        public void sessionCreated(HttpSessionEvent se) {
            EVENTS.add("created:" + node(se) + ":" + se.getSession().getId());
        }

        @Override
        public void sessionDestroyed(HttpSessionEvent se) {
            EVENTS.add("destroyed:" + node(se) + ":" + se.getSession().getId());
        }

        @Override
        public void attributeAdded(HttpSessionBindingEvent se) {
            EVENTS.add("added-" + se.getName() + ":" + node(se) + ":" + se.getSession().getId());
        }

        @Override
        public void attributeReplaced(HttpSessionBindingEvent se) {
            EVENTS.add("replaced-" + se.getName() + ":" + node(se) + ":" + se.getSession().getId());
        }

        @Override
        public void attributeRemoved(HttpSessionBindingEvent se) {
            EVENTS.add("removed-" + se.getName() + ":" + node(se) + ":" + se.getSession().getId());
        }

        @Override
        public void sessionIdChanged(HttpSessionEvent se, String oldSessionId) {
            EVENTS.add("id-changed-from-" + oldSessionId + ":" + node(se) + ":" + se.getSession().getId());
        }
    }

    /** An attribute value that hears binding and activation (replicated: Serializable, allowlisted). */
    public static final class Bound implements HttpSessionBindingListener, HttpSessionActivationListener, Serializable {
        private static final long serialVersionUID = 1L;
        public String label = "bound";

        @Override
        public void valueBound(HttpSessionBindingEvent event) {
            EVENTS.add("bound:" + node(event) + ":" + event.getSession().getId());
        }

        @Override
        public void valueUnbound(HttpSessionBindingEvent event) {
            EVENTS.add("unbound:" + node(event) + ":" + event.getSession().getId());
        }

        @Override
        public void sessionDidActivate(HttpSessionEvent se) {
            EVENTS.add("activated:" + node(se) + ":" + se.getSession().getId());
        }

        @Override
        public void sessionWillPassivate(HttpSessionEvent se) {
            EVENTS.add("passivated:" + node(se) + ":" + se.getSession().getId());
        }
    }
}
