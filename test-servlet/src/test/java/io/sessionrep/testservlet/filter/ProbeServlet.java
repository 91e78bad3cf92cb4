package io.sessionrep.testservlet.filter;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;

import java.io.IOException;

/**
 * {@code /probe?op=...&name=..&value=..}: one session operation per request, answering
 * {@code node|session-id|value} (session-id "-" when there is none).
 */
public class ProbeServlet extends HttpServlet {

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException, ServletException {
        String op = request.getParameter("op");
        String name = request.getParameter("name");
        String value = request.getParameter("value");
        String answer = "";
        switch (op) {
            case "set" -> request.getSession().setAttribute(name, value);
            case "principal" -> io.sessionrep.core.SessionPrincipals.set(request.getSession(), value);
            case "get" -> {
                HttpSession session = request.getSession(false);
                answer = session == null ? "" : String.valueOf(session.getAttribute(name));
            }
            case "bind" -> request.getSession().setAttribute(name, new Probes.Bound());
            case "remove" -> request.getSession().removeAttribute(name);
            case "timeout" -> request.getSession().setMaxInactiveInterval(Integer.parseInt(value));
            case "invalidate" -> {
                HttpSession session = request.getSession(false);
                if (session != null) {
                    session.invalidate();
                }
            }
            case "change" -> {
                request.getSession();
                answer = request.changeSessionId();
            }
            case "async" -> { // the attribute is set on another thread, then the cycle completes
                AsyncContext async = request.startAsync();
                HttpServletRequest wrapped = (HttpServletRequest) async.getRequest();
                async.start(() -> {
                    wrapped.getSession().setAttribute(name, value);
                    try {
                        write(wrapped, (HttpServletResponse) async.getResponse(), "async");
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                    async.complete();
                });
                return;
            }
            default -> throw new ServletException("unknown op " + op);
        }
        write(request, response, answer);
    }

    private void write(HttpServletRequest request, HttpServletResponse response, String answer) throws IOException {
        HttpSession session = request.getSession(false);
        response.setContentType("text/plain");
        response.getWriter().print(getServletContext().getInitParameter("node") + "|"
                + (session == null ? "-" : session.getId()) + "|" + answer);
    }
}
