package io.sessionrep.boot.sample;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Form login with two in-memory users; the cart needs a signed-in user. The security context lives in the
 * session, so it is replicated with the cart. The health probes and the node's cluster view are open (a
 * load balancer and the tests read them). A user has one session at a time in the cluster: signing in again,
 * on any node, ends the older one. The operator's session operations ({@code /actuator/sessionrep/sessions/**},
 * {@code /actuator/sessionrep/principals/**}) need the role OPERATOR, with HTTP Basic credentials on each request.
 */
@Configuration(proxyBeanMethods = false)
public class ShopSecurity {

    /**
     * The operator's requests: stateless (Basic credentials on every request, no session, hence no CSRF token to
     * check), for the role OPERATOR only.
     */
    @Bean
    @Order(1)
    SecurityFilterChain operators(HttpSecurity http) throws Exception {
        return http
                .securityMatcher("/actuator/sessionrep/sessions/**", "/actuator/sessionrep/principals/**")
                .authorizeHttpRequests(requests -> requests.anyRequest().hasRole("OPERATOR"))
                .httpBasic(Customizer.withDefaults())
                .sessionManagement(sessions -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .csrf(csrf -> csrf.disable())
                .build();
    }

    @Bean
    SecurityFilterChain shop(HttpSecurity http) throws Exception {
        return http
                .authorizeHttpRequests(requests -> requests
                        .requestMatchers("/actuator/health/**", "/actuator/sessionrep", "/actuator/metrics/**")
                        .permitAll()
                        .anyRequest().authenticated())
                .formLogin(login -> login.defaultSuccessUrl("/cart", true))
                // one session per user in the whole cluster (the starter's SessionRegistry counts every node's)
                .sessionManagement(sessions -> sessions.maximumSessions(1))
                .build();
    }

    @Bean
    UserDetailsService users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("alice").password("{noop}alice-secret").roles("SHOPPER").build(),
                User.withUsername("bob").password("{noop}bob-secret").roles("SHOPPER").build(),
                User.withUsername("ops").password("{noop}ops-secret").roles("OPERATOR").build());
    }
}
