package io.sessionrep.boot.sample;

import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;

/**
 * The cart held in the session: item to quantity. A record of the application's package, which the
 * {@code serialization-allowlist} names; {@link Serializable} only as the marker the replicator asks of session
 * values (it serializes the fields itself).
 */
public record Cart(Map<String, Integer> items) implements Serializable {

    public Cart {
        items = new TreeMap<>(items);
    }

    public static Cart empty() {
        return new Cart(Map.of());
    }

    /** This cart with {@code quantity} more of {@code item}. */
    public Cart add(String item, int quantity) {
        Map<String, Integer> more = new TreeMap<>(items);
        more.merge(item, quantity, Integer::sum);
        return new Cart(more);
    }
}
