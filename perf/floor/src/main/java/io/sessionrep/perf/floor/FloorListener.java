package io.sessionrep.perf.floor;

import jakarta.servlet.http.HttpSessionAttributeListener;
import jakarta.servlet.http.HttpSessionBindingEvent;
import jakarta.servlet.http.HttpSessionEvent;
import jakarta.servlet.http.HttpSessionListener;

/** Records every attribute set or removed and every invalidation into {@link RequestChanges}. */
public class FloorListener implements HttpSessionAttributeListener, HttpSessionListener {

    @Override
    public void attributeAdded(HttpSessionBindingEvent event) {
        set(event);
    }

    @Override
    public void attributeReplaced(HttpSessionBindingEvent event) {
        set(event);
    }

    private static void set(HttpSessionBindingEvent event) {
        // the event carries the old value on a replace: the new one is the session's
        String name = event.getName();
        RequestChanges.onThisThread().record(new Change.Set(event.getSession().getId(), name,
                event.getSession().getAttribute(name)));
    }

    @Override
    public void attributeRemoved(HttpSessionBindingEvent event) {
        RequestChanges.onThisThread().record(new Change.Remove(event.getSession().getId(), event.getName()));
    }

    @Override
    public void sessionDestroyed(HttpSessionEvent event) {
        RequestChanges.onThisThread().record(new Change.Destroy(event.getSession().getId()));
    }
}
