package io.sessionrep.testsupport;

import io.sessionrep.testsupport.allowed.ActivationProbe;
import io.sessionrep.testsupport.allowed.Note;
import io.sessionrep.testsupport.unlisted.Unlisted;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The tests' application: {@code /session?op=...} does one thing to the session and answers with a
 * short text body; header {@code X-Node} names the node that served it. Plain Servlet API only, the same
 * in every container. {@code forward} needs the servlet mapped at {@code /inner} too; {@code cross-set}
 * needs a second application at {@code /other} (with this servlet at {@code /session}) and cross-context
 * dispatches allowed.
 */
public class SessionServlet extends HttpServlet {
    private final String nodeName;

    public SessionServlet(String nodeName) {
        this.nodeName = nodeName;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response)
            throws IOException, ServletException {
        String op = request.getParameter("op");
        String name = request.getParameter("name");
        String value = request.getParameter("value");
        response.setHeader("X-Node", nodeName);
        response.setContentType("text/plain");
        String body;
        switch (op) {
            case "set" -> {
                request.getSession(true).setAttribute(name, value);
                body = "ok";
            }
            case "set-and-wait" -> {
                // sets the attribute, then waits inside the request until the test opens the gate (RequestGates)
                request.getSession(true).setAttribute(name, value);
                RequestGates.pass(request.getParameter("gate"));
                body = "ok";
            }
            case "create-commit-and-wait" -> {
                // a new session's first request that sends its response (and cookie) before it ends; with
                // then=<value>, it sets the attribute to that value once the gate opens
                HttpSession session = request.getSession(true);
                session.setAttribute(name, value);
                response.getWriter().write("ok");
                response.flushBuffer();
                RequestGates.pass(request.getParameter("gate"));
                String then = request.getParameter("then");
                if (then != null) {
                    session.setAttribute(name, then);
                }
                return;
            }
            case "wait-and-set" -> {
                // holds the session (entered) without changing it until the test opens the gate, then sets
                HttpSession session = request.getSession(false);
                if (session == null) {
                    body = "no-session";
                    break;
                }
                RequestGates.pass(request.getParameter("gate"));
                session.setAttribute(name, value);
                body = "ok";
            }
            case "note" -> {
                request.getSession(true).setAttribute(name, new Note(value));
                body = "ok";
            }
            case "probe" -> {
                request.getSession(true).setAttribute(name, new ActivationProbe());
                body = "ok";
            }
            case "unlisted" -> {
                request.getSession(true).setAttribute(name, new Unlisted(value));
                body = "ok";
            }
            case "principal" -> {
                // the explicit API a framework integration calls (value empty: clear)
                io.sessionrep.core.SessionPrincipals.set(request.getSession(true), value == null || value.isEmpty() ? null : value);
                body = "ok";
            }
            case "get" -> {
                HttpSession session = request.getSession(false);
                body = session == null ? "no-session" : String.valueOf(session.getAttribute(name));
            }
            case "fill" -> {
                HttpSession session = request.getSession(true);
                int number = Integer.parseInt(request.getParameter("number"));
                int size = Integer.parseInt(request.getParameter("size"));
                for (int i = 0; i < number; i++) {
                    session.setAttribute("attr" + i, randomText(size));
                }
                body = "ok";
            }
            case "change" -> {
                int size = Integer.parseInt(request.getParameter("size"));
                request.getSession(true).setAttribute(name, randomText(size));
                body = "ok";
            }
            case "list-add" -> {
                HttpSession session = request.getSession(true);
                @SuppressWarnings("unchecked")
                List<String> list = (List<String>) session.getAttribute(name);
                if (list == null) {
                    list = new ArrayList<>();
                    session.setAttribute(name, list);
                }
                list.add(value); // in place from the second call on: no setAttribute
                body = list.toString();
            }
            case "max-inactive" -> {
                request.getSession(true).setMaxInactiveInterval(Integer.parseInt(value));
                body = "ok";
            }
            case "renew" -> {
                request.getSession(true);
                body = request.changeSessionId();
            }
            case "invalidate" -> {
                HttpSession session = request.getSession(false);
                if (session != null) {
                    session.invalidate();
                }
                body = session == null ? "no-session" : "invalidated";
            }
            case "forward" -> {
                // a nested dispatch that changes the session: replicated once, for the outer request
                request.getRequestDispatcher("/inner?op=set&name=" + name + "&value=" + value)
                        .forward(request, response);
                return;
            }
            case "cross-set" -> {
                // a cross-context include: the other web application sets an attribute in its own session
                request.getSession(true);
                ServletContext other = getServletContext().getContext("/other");
                other.getRequestDispatcher("/session?op=set&name=" + name + "&value=" + value)
                        .include(request, response);
                return;
            }
            case "async-set" -> {
                AsyncContext async = request.startAsync();
                async.start(() -> {
                    try {
                        HttpServletRequest asyncRequest = (HttpServletRequest) async.getRequest();
                        asyncRequest.getSession(true).setAttribute(name, value);
                        async.getResponse().getWriter().write("ok");
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    } finally {
                        async.complete();
                    }
                });
                return;
            }
            default -> {
                response.sendError(400, "unknown op " + op);
                return;
            }
        }
        response.getWriter().write(body);
    }

    private static String randomText(int size) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        char[] chars = new char[size];
        for (int i = 0; i < size; i++) {
            chars[i] = (char) ('a' + random.nextInt(26));
        }
        return new String(chars);
    }
}
