package io.sessionrep.boot.sample;

import jakarta.servlet.http.HttpSession;
import org.springframework.security.core.Authentication;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.LinkedHashMap;
import java.util.Map;

/** The signed-in user's cart, kept in the HTTP session. */
@RestController
public class CartController {

    static final String CART = "cart";

    /** The cart, who owns it, and the CSRF token the next change must carry (header {@code X-CSRF-TOKEN}). */
    @GetMapping("/cart")
    public Map<String, Object> cart(HttpSession session, Authentication user, CsrfToken csrf) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("user", user.getName());
        view.put("items", cart(session).items());
        view.put("csrf", csrf.getToken());
        return view;
    }

    @PostMapping("/cart/items")
    public Map<String, Integer> add(HttpSession session, @RequestParam("item") String item,
                                    @RequestParam(name = "quantity", defaultValue = "1") int quantity) {
        Cart cart = cart(session).add(item, quantity);
        session.setAttribute(CART, cart);
        return cart.items();
    }

    private static Cart cart(HttpSession session) {
        Object cart = session.getAttribute(CART);
        return cart instanceof Cart held ? held : Cart.empty();
    }
}
