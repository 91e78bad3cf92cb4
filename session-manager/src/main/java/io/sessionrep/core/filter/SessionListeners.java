package io.sessionrep.core.filter;

import io.sessionrep.core.config.ConfigException;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpSession;
import jakarta.servlet.http.HttpSessionAttributeListener;
import jakarta.servlet.http.HttpSessionBindingEvent;
import jakarta.servlet.http.HttpSessionEvent;
import jakarta.servlet.http.HttpSessionIdListener;
import jakarta.servlet.http.HttpSessionListener;

import java.util.ArrayList;
import java.util.EventListener;
import java.util.List;
import java.util.function.Consumer;

/**
 * The application's session listeners that the filter notifies. The Servlet API gives a filter no access
 * to the listeners the container registered (web.xml {@code <listener>}, {@code @WebListener}), so they
 * are named in the {@value FilterSettings#SESSION_LISTENERS} init-param and instantiated here with
 * {@link ServletContext#createListener} (the container's injection applies). A listener that throws is
 * logged and the others still run, as containers do.
 */
final class SessionListeners {
    private static final System.Logger LOG = System.getLogger(SessionListeners.class.getName());

    private final List<HttpSessionListener> lifecycle = new ArrayList<>();
    private final List<HttpSessionAttributeListener> attributes = new ArrayList<>();
    private final List<HttpSessionIdListener> ids = new ArrayList<>();

    static SessionListeners create(ServletContext context, List<String> classNames, ClassLoader loader) {
        SessionListeners listeners = new SessionListeners();
        for (String name : classNames) {
            EventListener listener = instantiate(context, name, loader);
            boolean used = false;
            if (listener instanceof HttpSessionListener l) {
                listeners.lifecycle.add(l);
                used = true;
            }
            if (listener instanceof HttpSessionAttributeListener l) {
                listeners.attributes.add(l);
                used = true;
            }
            if (listener instanceof HttpSessionIdListener l) {
                listeners.ids.add(l);
                used = true;
            }
            if (!used) {
                throw new ConfigException(FilterSettings.SESSION_LISTENERS, "'" + name + "' is not allowed; expected"
                        + " an HttpSessionListener, HttpSessionAttributeListener or HttpSessionIdListener");
            }
        }
        return listeners;
    }

    @SuppressWarnings("unchecked")
    private static EventListener instantiate(ServletContext context, String name, ClassLoader loader) {
        Class<?> type;
        try {
            type = Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new ConfigException(FilterSettings.SESSION_LISTENERS, "'" + name + "' cannot be loaded: " + e);
        }
        if (!EventListener.class.isAssignableFrom(type)) {
            throw new ConfigException(FilterSettings.SESSION_LISTENERS, "'" + name + "' is not allowed; expected"
                    + " an HttpSessionListener, HttpSessionAttributeListener or HttpSessionIdListener");
        }
        try {
            return context.createListener((Class<? extends EventListener>) type);
        } catch (ServletException | RuntimeException e) {
            try {
                return (EventListener) type.getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException | RuntimeException second) {
                throw new ConfigException(FilterSettings.SESSION_LISTENERS, "'" + name + "' cannot be instantiated: "
                        + e + " / " + second);
            }
        }
    }

    void sessionCreated(HttpSession session) {
        HttpSessionEvent event = new HttpSessionEvent(session);
        each(lifecycle, l -> l.sessionCreated(event), "sessionCreated");
    }

    /** In reverse declaration order, as the Servlet specification asks. */
    void sessionDestroyed(HttpSession session) {
        HttpSessionEvent event = new HttpSessionEvent(session);
        List<HttpSessionListener> reversed = new ArrayList<>(lifecycle);
        java.util.Collections.reverse(reversed);
        each(reversed, l -> l.sessionDestroyed(event), "sessionDestroyed");
    }

    void sessionIdChanged(HttpSession session, String oldId) {
        HttpSessionEvent event = new HttpSessionEvent(session);
        each(ids, l -> l.sessionIdChanged(event, oldId), "sessionIdChanged");
    }

    void attributeAdded(HttpSession session, String name, Object value) {
        HttpSessionBindingEvent event = new HttpSessionBindingEvent(session, name, value);
        each(attributes, l -> l.attributeAdded(event), "attributeAdded");
    }

    void attributeReplaced(HttpSession session, String name, Object oldValue) {
        HttpSessionBindingEvent event = new HttpSessionBindingEvent(session, name, oldValue);
        each(attributes, l -> l.attributeReplaced(event), "attributeReplaced");
    }

    void attributeRemoved(HttpSession session, String name, Object oldValue) {
        HttpSessionBindingEvent event = new HttpSessionBindingEvent(session, name, oldValue);
        each(attributes, l -> l.attributeRemoved(event), "attributeRemoved");
    }

    static <T> void each(List<T> listeners, Consumer<T> call, String what) {
        for (T listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, what + " of " + listener.getClass().getName() + " failed", e);
            }
        }
    }
}
