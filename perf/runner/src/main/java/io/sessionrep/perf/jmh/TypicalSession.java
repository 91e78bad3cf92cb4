package io.sessionrep.perf.jmh;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A typical web-shop session's attributes: a signed-in user's profile, a cart of five items,
 * preferences, a CSRF token and a few scalars (about 1.5 KiB with Java serialization).
 */
final class TypicalSession {

    private TypicalSession() {
    }

    record CartItem(String sku, String name, int quantity, BigDecimal price) implements Serializable {
    }

    static final class UserProfile implements Serializable {
        private static final long serialVersionUID = 1L;
        long id;
        String login;
        String displayName;
        String email;
        List<String> roles;
        Instant lastLogin;
    }

    static Map<String, Object> attributes() {
        Map<String, Object> a = new LinkedHashMap<>();
        UserProfile user = new UserProfile();
        user.id = 4_711_0815L;
        user.login = "jdoe";
        user.displayName = "Jane Doe";
        user.email = "jane.doe@example.com";
        user.roles = new ArrayList<>(List.of("customer", "newsletter", "beta"));
        user.lastLogin = Instant.parse("2026-11-21T08:15:30Z");
        a.put("user", user);
        List<CartItem> cart = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            cart.add(new CartItem("SKU-10" + i, "Article number " + i, i + 1, new BigDecimal("19.9" + i)));
        }
        a.put("cart", cart);
        Map<String, String> prefs = new LinkedHashMap<>();
        prefs.put("currency", "EUR");
        prefs.put("theme", "dark");
        prefs.put("pageSize", "50");
        prefs.put("sort", "price-asc");
        a.put("preferences", prefs);
        a.put("csrf", new byte[32]);
        a.put("locale", "de_DE");
        a.put("visits", 17);
        a.put("lastSearch", "wireless headphones noise cancelling");
        return a;
    }
}
