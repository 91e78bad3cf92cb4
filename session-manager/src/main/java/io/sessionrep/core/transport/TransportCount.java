package io.sessionrep.core.transport;

import java.util.function.LongSupplier;

/**
 * One of a transport's own counts (frames it refused, requests it gave up, ...), which the core exports beside its
 * meters as a counter tagged with the node's name (and {@code reason}, when not null): what the transport sees and the
 * core does not, such as a hostile connection closed before any message reached the core.
 *
 * @param name        the meter's name, e.g. {@code sessionrep.transport.refused}
 * @param reason      the value of its {@code reason} tag, or null for none
 * @param description what it counts, for the meter's help text
 * @param count       the count so far; it only grows
 */
public record TransportCount(String name, String reason, String description, LongSupplier count) {
}
