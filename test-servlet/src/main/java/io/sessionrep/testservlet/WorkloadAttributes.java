package io.sessionrep.testservlet;

import jakarta.servlet.http.HttpSession;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;

/** The few session operations {@link Workload} needs, so its logic runs on a plain map in unit tests. */
public interface WorkloadAttributes {

    Object get(String name);

    void set(String name, Object value);

    void remove(String name);

    Collection<String> names();

    /** A live servlet session: every change goes through {@code setAttribute}/{@code removeAttribute}. */
    static WorkloadAttributes of(HttpSession session) {
        Objects.requireNonNull(session, "session");
        return new WorkloadAttributes() {
            @Override
            public Object get(String name) {
                return session.getAttribute(name);
            }

            @Override
            public void set(String name, Object value) {
                session.setAttribute(name, value);
            }

            @Override
            public void remove(String name) {
                session.removeAttribute(name);
            }

            @Override
            public Collection<String> names() {
                return Collections.list(session.getAttributeNames());
            }
        };
    }

    /** A map (unit tests, expected states). */
    static WorkloadAttributes of(Map<String, Object> map) {
        Objects.requireNonNull(map, "map");
        return new WorkloadAttributes() {
            @Override
            public Object get(String name) {
                return map.get(name);
            }

            @Override
            public void set(String name, Object value) {
                map.put(name, value);
            }

            @Override
            public void remove(String name) {
                map.remove(name);
            }

            @Override
            public Collection<String> names() {
                return map.keySet();
            }
        };
    }
}
