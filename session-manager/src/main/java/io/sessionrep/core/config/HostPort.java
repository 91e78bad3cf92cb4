package io.sessionrep.core.config;

import java.util.Objects;

/** A {@code host:port} pair from the {@code peers} option. */
public record HostPort(String host, int port) {
    public HostPort {
        Objects.requireNonNull(host, "host");
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
