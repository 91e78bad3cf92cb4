package io.sessionrep.core.config;

import java.util.Objects;

/**
 * A {@code host:port} pair from the {@code peers} option. {@code host} is a host name or an IP literal;
 * an IPv6 literal is held without brackets ({@code ::1}) and printed with them ({@code [::1]:7800}).
 */
public record HostPort(String host, int port) {
    public HostPort {
        Objects.requireNonNull(host, "host");
    }

    /** {@code host:port}, or {@code [host]:port} for an IPv6 literal: the spelling the option accepts. */
    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
