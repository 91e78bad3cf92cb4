package io.sessionrep.boot.sample;

import io.sessionrep.core.serial.ClassAllowlist;
import io.sessionrep.core.serial.KryoSessionSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextImpl;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.authentication.WebAuthenticationDetails;
import org.springframework.security.web.csrf.DefaultCsrfToken;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What the sample keeps in its sessions (Spring Security's context of the signed-in user, its CSRF token, the
 * cart) passes the sample's {@code serialization-allowlist} and comes back equal: what a backup node rebuilds.
 */
class SessionValuesTest {

    private final KryoSessionSerializer serializer = new KryoSessionSerializer(
            ClassAllowlist.of(List.of("io.sessionrep.boot.sample.", "org.springframework.security.")),
            getClass().getClassLoader());

    @Test
    void theSignedInUserComesBack() throws Exception {
        User alice = (User) User.withUsername("alice").password("{noop}alice-secret").roles("SHOPPER").build();
        UsernamePasswordAuthenticationToken login = UsernamePasswordAuthenticationToken.authenticated(alice, null,
                alice.getAuthorities());
        login.setDetails(new WebAuthenticationDetails("127.0.0.1", "session-1"));
        SecurityContext context = new SecurityContextImpl(login);

        SecurityContext copy = roundTrip(context);

        assertEquals(context, copy);
        assertEquals("alice", copy.getAuthentication().getName());
        assertEquals(List.of(new SimpleGrantedAuthority("ROLE_SHOPPER")), List.copyOf(copy.getAuthentication().getAuthorities()));
        assertEquals(login.getDetails(), copy.getAuthentication().getDetails());
    }

    @Test
    void theCsrfTokenAndTheCartComeBack() throws Exception {
        DefaultCsrfToken token = new DefaultCsrfToken("X-CSRF-TOKEN", "_csrf", "f1e2d3");
        DefaultCsrfToken tokenCopy = roundTrip(token);
        assertEquals(token.getToken(), tokenCopy.getToken());
        assertEquals(token.getHeaderName(), tokenCopy.getHeaderName());

        Cart cart = Cart.empty().add("apple", 2).add("pear", 1);
        assertEquals(cart, roundTrip(cart));
    }

    @SuppressWarnings("unchecked")
    private <T> T roundTrip(T value) throws Exception {
        return (T) serializer.deserialize(serializer.serialize(value));
    }
}
