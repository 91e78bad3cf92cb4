package io.sessionrep.boot.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A small shop on Spring Boot whose sessions are replicated by the starter alone: no replication code here,
 * only {@code sessionrep.*} properties ({@code application.properties}). Form login with in-memory users
 * ({@link ShopSecurity}), a cart in the session ({@link CartController}). The container is chosen by profile:
 * {@code tomcat} or {@code jetty} (both are on the class path of the tests).
 */
@SpringBootApplication
public class ShopApplication {

    public static void main(String[] args) {
        SpringApplication.run(ShopApplication.class, args);
    }
}
