package io.sessionrep.core.filter;

import io.micrometer.core.instrument.Metrics;
import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.transport.TransportProvider;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestWrapper;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Replicated sessions in any Servlet 6 container, installed in the application's {@code web.xml} only:
 * <pre>{@code
 * <filter>
 *   <filter-name>sessionrep</filter-name>
 *   <filter-class>io.sessionrep.core.filter.ReplicationFilter</filter-class>
 *   <async-supported>true</async-supported>
 *   <init-param><param-name>write-quota</param-name><param-value>1</param-value></init-param>
 * </filter>
 * <filter-mapping><filter-name>sessionrep</filter-name><url-pattern>/*</url-pattern></filter-mapping>
 * }</pre>
 * The application behind it gets a wrapped request whose {@code getSession} returns a replicated
 * {@code HttpSession} identified by the filter's own cookie ({@code cookie-name}, default
 * {@value FilterSettings#DEFAULT_COOKIE_NAME}, so it never fights the container's {@code JSESSIONID}).
 * Options: every canonical option of the configuration reference as an init-param, overridden per node by
 * {@code -Dsessionrep.<option>} system properties; see {@link FilterSettings}.
 *
 * <p>Request end (the one replication per exchange) happens when the outermost dispatch returns, or when
 * the async cycle completes. The filter joins the cluster in {@link #init} (a bad option stops the
 * application with a message naming it) and leaves it in {@link #destroy}; the transport comes from the
 * {@link TransportProvider} service (JGroups, in {@code sessionrep-filter.jar}).
 *
 * <p>Meters: with {@code metrics=jmx} (the default) MBeans of the platform MBeanServer, domain
 * {@code sessionrep}, unregistered in {@link #destroy}; either way also Micrometer's global registry of the
 * application ({@code Metrics.globalRegistry}, which Spring Boot feeds into its own registries).
 */
public class ReplicationFilter implements Filter {
    private static final System.Logger LOG = System.getLogger(ReplicationFilter.class.getName());

    private final TransportProvider transports;
    private FilterSessionManager sessions;
    private String cookieName;

    /** The container's constructor: the transport is found with {@link TransportProvider#load}. */
    public ReplicationFilter() {
        this(null);
    }

    /** A filter replicating over the transports {@code transports} makes (null: the registered provider). */
    public ReplicationFilter(TransportProvider transports) {
        this.transports = transports;
    }

    @Override
    public void init(FilterConfig filterConfig) throws ServletException {
        try {
            Map<String, String> parameters = new LinkedHashMap<>();
            Enumeration<String> names = filterConfig.getInitParameterNames();
            while (names.hasMoreElements()) {
                String name = names.nextElement();
                parameters.put(name, filterConfig.getInitParameter(name));
            }
            FilterSettings settings = FilterSettings.from(parameters, System.getProperties());
            ClassLoader appLoader = Thread.currentThread().getContextClassLoader();
            if (appLoader == null) {
                appLoader = ReplicationFilter.class.getClassLoader();
            }
            SessionListeners listeners = SessionListeners.create(filterConfig.getServletContext(),
                    settings.sessionListeners(), appLoader);
            FilterSessionManager manager = new FilterSessionManager(filterConfig.getServletContext(),
                    settings.config(), listeners, appLoader, Clock.systemUTC(), new SecureRandom());
            LOG.log(System.Logger.Level.INFO, "sessionrep filter for context '"
                    + filterConfig.getServletContext().getContextPath() + "' (cookie " + settings.cookieName()
                    + ", route suffix ." + settings.config().nodeName() + "):\n" + settings.config().describe());
            // null: the node finds the registered provider (TransportProvider.load)
            manager.start(transports, Metrics.globalRegistry, FilterSessionManager.SWEEP_INTERVAL);
            this.sessions = manager;
            this.cookieName = settings.cookieName();
        } catch (ConfigException e) {
            LOG.log(System.Logger.Level.ERROR, "sessionrep filter not started: " + e.getMessage());
            throw new ServletException("sessionrep filter configuration: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "sessionrep filter not started: " + e.getMessage(), e);
            throw new ServletException("sessionrep filter cannot start: " + e.getMessage(), e);
        }
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)) {
            chain.doFilter(req, res);
            return;
        }
        if (request.getAttribute(RequestScope.ATTRIBUTE) instanceof RequestScope scope) {
            // a nested dispatch (forward, include, error, async) of an exchange this filter already scoped
            chain.doFilter(wrapsSessionRequest(request) ? request : new SessionRequest(request, scope), res);
            return;
        }
        // the requested session is resolved when the application first asks for it (RequestScope.session)
        RequestScope scope = new RequestScope(request, response, sessions, cookieName);
        request.setAttribute(RequestScope.ATTRIBUTE, scope);
        try {
            chain.doFilter(new SessionRequest(request, scope), response);
        } catch (IOException | ServletException | RuntimeException | Error e) {
            if (!scope.timedOut() || response.isCommitted()) {
                throw e;
            }
            refuse(response); // the session's owner did not hand it over in time
        } finally {
            if (!scope.isAsync() && request.isAsyncStarted()) {
                scope.asyncStarted(request.getAsyncContext()); // started on the unwrapped request
            }
            if (!scope.isAsync()) {
                scope.end();
            }
        }
    }

    /**
     * Answers 503 with {@code Retry-After: 1} a request whose session lookup timed out: the exception went up
     * through the application from its {@code getSession}.
     */
    private static void refuse(HttpServletResponse response) throws IOException {
        response.reset();
        response.setHeader("Retry-After", "1");
        response.setHeader(io.sessionrep.core.OwnershipTimeoutException.HEADER,
                io.sessionrep.core.OwnershipTimeoutException.REASON);
        response.sendError(io.sessionrep.core.OwnershipTimeoutException.STATUS);
    }

    private static boolean wrapsSessionRequest(ServletRequest request) {
        return request instanceof SessionRequest
                || request instanceof ServletRequestWrapper wrapper && wrapper.isWrapperFor(SessionRequest.class);
    }

    @Override
    public void destroy() {
        FilterSessionManager running = sessions;
        sessions = null;
        if (running != null) {
            running.close();
        }
    }

    /** The live session manager (tests and diagnostics in this package). */
    FilterSessionManager sessions() {
        return sessions;
    }
}
