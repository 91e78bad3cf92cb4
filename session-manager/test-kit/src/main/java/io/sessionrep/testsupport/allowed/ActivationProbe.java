package io.sessionrep.testsupport.allowed;

import jakarta.servlet.http.HttpSessionActivationListener;
import jakarta.servlet.http.HttpSessionEvent;

import java.io.Serializable;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the activations the container announces to it (all nodes share this JVM, hence the static). */
public class ActivationProbe implements Serializable, HttpSessionActivationListener {
    private static final long serialVersionUID = 1L;
    public static final AtomicInteger ACTIVATIONS = new AtomicInteger();

    @Override
    public void sessionDidActivate(HttpSessionEvent event) {
        ACTIVATIONS.incrementAndGet();
    }

    @Override
    public String toString() {
        return "ActivationProbe";
    }
}
