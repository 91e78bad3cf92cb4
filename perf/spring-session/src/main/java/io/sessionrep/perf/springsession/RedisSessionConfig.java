package io.sessionrep.perf.springsession;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.session.data.redis.config.annotation.web.http.EnableRedisHttpSession;

/**
 * Spring Session backed by one Redis server, through Lettuce: the {@code springSessionRepositoryFilter}
 * bean that a {@code DelegatingFilterProxy} of that name in web.xml delegates to. Spring Session's
 * defaults otherwise (RedisSessionRepository, JDK serialization of attributes, flush on save, cookie
 * {@code SESSION}). The server is {@code -Dperf.redis.host} (default 127.0.0.1) : {@code -Dperf.redis.port}
 * (default 6379), system properties of the container's JVM.
 */
@Configuration(proxyBeanMethods = false)
@EnableRedisHttpSession
public class RedisSessionConfig {

    public static final String HOST_PROPERTY = "perf.redis.host";
    public static final String PORT_PROPERTY = "perf.redis.port";

    @Bean
    public LettuceConnectionFactory redisConnectionFactory() {
        return new LettuceConnectionFactory(new RedisStandaloneConfiguration(
                System.getProperty(HOST_PROPERTY, "127.0.0.1"), Integer.getInteger(PORT_PROPERTY, 6379)));
    }
}
