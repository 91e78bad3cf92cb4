package io.sessionrep.tomcat.it;

import jakarta.servlet.http.HttpSessionEvent;
import jakarta.servlet.http.HttpSessionListener;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** One node's HttpSessionListener: records "created id" and "destroyed id", in order. */
final class SessionEventsLog implements HttpSessionListener {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void sessionCreated(HttpSessionEvent event) {
        events.add("created " + event.getSession().getId());
    }

    @Override
    public void sessionDestroyed(HttpSessionEvent event) {
        events.add("destroyed " + event.getSession().getId());
    }

    /** How often {@code kind} ("created", "destroyed") was reported, for any session. */
    long count(String kind) {
        return events.stream().filter(e -> e.startsWith(kind + " ")).count();
    }

    /** How often {@code kind} ("created", "destroyed") was reported for the cluster session {@code clusterId}. */
    long count(String kind, String clusterId) {
        return events.stream().filter(e -> e.startsWith(kind + " " + clusterId)).count();
    }
}
