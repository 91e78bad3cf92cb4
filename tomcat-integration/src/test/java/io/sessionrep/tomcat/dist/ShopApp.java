package io.sessionrep.tomcat.dist;

import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32;

/**
 * A small shop, deployed exploded as {@code webapps/shop}: its session holds a {@code com.example.shop.Cart}
 * (the owner, a list of {@code Item}s, their total quantity) under {@code cart}, the user's name (a String)
 * under {@code user} and an Integer {@code counter} of the items added. Three builds of it:
 * <ul>
 *   <li>{@link #V1};</li>
 *   <li>{@link #V2}: {@code Cart} gained a field, {@code String coupon}, which the servlet sets and shows;</li>
 *   <li>{@link #V3}: like v2, but {@code Cart}'s {@code quantity} is a {@code long} (was {@code int}): a
 *       change of a field's declared type.</li>
 * </ul>
 * One servlet, {@code /shop/cart?op=...}, the same source in every build:
 * <ul>
 *   <li>{@code login&user=U}: a new session for user U, an empty cart, counter 0;</li>
 *   <li>{@code add&item=ID&qty=Q&price=P[&work=MS]}: adds the item unless the cart holds that id already (a
 *       retry of an add whose answer was lost adds nothing), works {@code MS} milliseconds more, counts it, and
 *       stores the cart again ({@code setAttribute}); a session without a cart (its attribute was not restored)
 *       gets a new one;</li>
 *   <li>{@code show}: reads, changes nothing;</li>
 *   <li>{@code coupon&code=C}: sets the coupon (builds that have the field; v1 answers 400).</li>
 * </ul>
 * Every answer is one JSON line: the node and build that served it, whether the session is new, the user,
 * the counter, whether there is a cart, its items, quantity, owner and {@link #checksum}, whether
 * {@code Cart} has a {@code coupon} field and its value. Without a session: 404 and {@code "error"}.
 * <p>
 * Its {@code web.xml} also maps sessionrep's readiness endpoint at {@code /sessionrep/ready} ({@link #READY}), as
 * docs/rolling-deploy.md tells an application to.
 */
final class ShopApp {
    /** The servlet's path and the start of its query. */
    static final String PATH = "/shop/cart?op=";
    /** sessionrep's readiness endpoint, mapped as docs/rolling-deploy.md section 2 says (its class in sessionrep-tomcat.jar). */
    static final String READY = "/shop/sessionrep/ready";

    private static final String ITEM = """
            package com.example.shop;

            public class Item implements java.io.Serializable {
                final String id;
                final int qty;
                final long priceCents;

                Item(String id, int qty, long priceCents) {
                    this.id = id;
                    this.qty = qty;
                    this.priceCents = priceCents;
                }
            }
            """;

    /** Everything of {@code Cart} but its fields; {@code QUANTITY} is {@code int} or {@code long}. */
    private static final String CART_METHODS = """
                public Cart(String owner) {
                    this.owner = owner;
                }

                boolean add(Item item) {
                    for (Item held : items) {
                        if (held.id.equals(item.id)) {
                            return false;
                        }
                    }
                    items.add(item);
                    quantity += item.qty;
                    return true;
                }

                /** CRC-32 of owner|id*qty@price;... in the order the items were added. */
                String checksum() {
                    StringBuilder text = new StringBuilder(owner).append('|');
                    for (Item item : items) {
                        text.append(item.id).append('*').append(item.qty).append('@').append(item.priceCents).append(';');
                    }
                    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
                    crc.update(text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    return Long.toHexString(crc.getValue());
                }
            }
            """;

    private static final String CART_V1 = cart("int quantity;");
    private static final String CART_V2 = cart("int quantity;", "String coupon;");
    private static final String CART_V3 = cart("long quantity;", "String coupon;");

    /** {@code Cart} with {@code owner}, {@code items} and then {@code fields}. */
    private static String cart(String... fields) {
        StringBuilder source = new StringBuilder("""
                package com.example.shop;

                public class Cart implements java.io.Serializable {
                    final String owner;
                    final java.util.List<Item> items = new java.util.ArrayList<>();
                """);
        for (String field : fields) {
            source.append("    ").append(field).append('\n');
        }
        return source.append('\n').append(CART_METHODS).toString();
    }

    /** What differs between the builds in the servlet's work: the build's name and the coupon. */
    private static final String BUILD_WITHOUT_COUPON = """
            package com.example.shop;

            final class Build {
                static final String NAME = "%s";

                static boolean setCoupon(Cart cart, String code) {
                    return false;
                }

                static String coupon(Cart cart) {
                    return null;
                }
            }
            """;

    private static final String BUILD_WITH_COUPON = """
            package com.example.shop;

            final class Build {
                static final String NAME = "%s";

                static boolean setCoupon(Cart cart, String code) {
                    cart.coupon = code;
                    return true;
                }

                static String coupon(Cart cart) {
                    return cart.coupon;
                }
            }
            """;

    private static final String SERVLET = """
            package com.example.shop;

            import jakarta.servlet.http.HttpServlet;
            import jakarta.servlet.http.HttpServletRequest;
            import jakarta.servlet.http.HttpServletResponse;
            import jakarta.servlet.http.HttpSession;
            import java.io.IOException;
            import java.util.Arrays;

            public class ShopServlet extends HttpServlet {
                private static final String NODE = System.getProperty("sessionrep.node-name");

                @Override
                protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                    response.setContentType("application/json");
                    String op = String.valueOf(request.getParameter("op"));
                    HttpSession session = request.getSession(op.equals("login"));
                    if (session == null) {
                        response.setStatus(404);
                        response.getWriter().print("{\\"error\\":\\"no session\\",\\"node\\":\\"" + NODE + "\\"}");
                        return;
                    }
                    boolean created = session.isNew();
                    if (created) {
                        session.setAttribute("user", request.getParameter("user"));
                        session.setAttribute("counter", 0);
                        session.setAttribute("cart", new Cart(request.getParameter("user")));
                    }
                    String user = (String) session.getAttribute("user");
                    Cart cart = (Cart) session.getAttribute("cart");
                    Boolean added = null;
                    switch (op) {
                        case "login", "show" -> {
                        }
                        case "add" -> {
                            if (cart == null) {
                                cart = new Cart(user);
                            }
                            added = cart.add(new Item(request.getParameter("item"),
                                    Integer.parseInt(request.getParameter("qty")),
                                    Long.parseLong(request.getParameter("price"))));
                            work(request.getParameter("work"));
                            if (added) {
                                session.setAttribute("counter", (Integer) session.getAttribute("counter") + 1);
                            }
                            session.setAttribute("cart", cart);
                        }
                        case "coupon" -> {
                            if (cart == null || !Build.setCoupon(cart, request.getParameter("code"))) {
                                response.sendError(400, "no coupons in build " + Build.NAME);
                                return;
                            }
                            session.setAttribute("cart", cart);
                        }
                        default -> {
                            response.sendError(400, "unknown op " + op);
                            return;
                        }
                    }
                    boolean couponField = Arrays.stream(Cart.class.getDeclaredFields())
                            .anyMatch(f -> f.getName().equals("coupon"));
                    StringBuilder json = new StringBuilder("{")
                            .append("\\"node\\":\\"").append(NODE).append("\\",")
                            .append("\\"build\\":\\"").append(Build.NAME).append("\\",")
                            .append("\\"created\\":").append(created).append(',')
                            .append("\\"added\\":").append(added).append(',')
                            .append("\\"user\\":\\"").append(user).append("\\",")
                            .append("\\"counter\\":").append(session.getAttribute("counter")).append(',')
                            .append("\\"cart\\":").append(cart != null).append(',');
                    if (cart != null) {
                        json.append("\\"items\\":").append(cart.items.size()).append(',')
                                .append("\\"quantity\\":").append(cart.quantity).append(',')
                                .append("\\"owner\\":\\"").append(cart.owner).append("\\",")
                                .append("\\"checksum\\":\\"").append(cart.checksum()).append("\\",")
                                .append("\\"coupon\\":").append(quoted(Build.coupon(cart))).append(',');
                    }
                    json.append("\\"couponField\\":").append(couponField).append('}');
                    response.getWriter().print(json);
                }

                /** The rest of a request's work (checks, a database): {@code millis} of it. */
                private static void work(String millis) {
                    try {
                        Thread.sleep(millis == null ? 0 : Long.parseLong(millis));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }

                private static String quoted(String value) {
                    return value == null ? "null" : "\\"" + value + "\\"";
                }
            }
            """;

    private static final String WEB_XML = """
            <?xml version="1.0" encoding="UTF-8"?>
            <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.1" metadata-complete="true">
              <servlet>
                <servlet-name>shop</servlet-name>
                <servlet-class>com.example.shop.ShopServlet</servlet-class>
              </servlet>
              <servlet-mapping>
                <servlet-name>shop</servlet-name>
                <url-pattern>/cart</url-pattern>
              </servlet-mapping>
              <servlet>
                <servlet-name>sessionrep-ready</servlet-name>
                <servlet-class>io.sessionrep.core.health.ReadinessServlet</servlet-class>
              </servlet>
              <servlet-mapping>
                <servlet-name>sessionrep-ready</servlet-name>
                <url-pattern>/sessionrep/ready</url-pattern>
              </servlet-mapping>
            </web-app>
            """;

    /** One build of the application: the sources of its classes by class name. */
    record Version(String name, Map<String, String> sources) {
    }

    static final Version V1 = version("v1", CART_V1, BUILD_WITHOUT_COUPON);
    static final Version V2 = version("v2", CART_V2, BUILD_WITH_COUPON);
    static final Version V3 = version("v3", CART_V3, BUILD_WITH_COUPON);

    private static Version version(String name, String cart, String build) {
        return new Version(name, Map.of("com.example.shop.Item", ITEM, "com.example.shop.Cart", cart,
                "com.example.shop.Build", build.formatted(name), "com.example.shop.ShopServlet", SERVLET));
    }

    private ShopApp() {
    }

    /**
     * Installs {@code version} as {@code webapps/shop} of the node's base: {@code WEB-INF/web.xml}, and
     * {@code WEB-INF/classes} compiled here against the distribution's Servlet API ({@code lib/servlet-api.jar}
     * of its {@code CATALINA_HOME}), replacing the classes of any build installed before.
     */
    static void deploy(Version version, TomcatProcess node) throws IOException {
        Path webInf = node.base.resolve("webapps/shop/WEB-INF");
        Path classes = webInf.resolve("classes");
        if (Files.exists(classes)) {
            try (Stream<Path> old = Files.walk(classes)) {
                for (Path p : old.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(classes);
        Files.writeString(webInf.resolve("web.xml"), WEB_XML);
        compile(version, node.home.resolve("lib/servlet-api.jar"), classes);
    }

    private static void compile(Version version, Path servletApi, Path out) {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        List<JavaFileObject> units = new ArrayList<>();
        version.sources().forEach((className, source) -> units.add(new SimpleJavaFileObject(
                URI.create("string:///" + className.replace('.', '/') + JavaFileObject.Kind.SOURCE.extension),
                JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        }));
        StringWriter errors = new StringWriter();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, null)) {
            boolean ok = compiler.getTask(errors, files, null, List.of("-d", out.toString(), "--release", "17",
                    "-classpath", servletApi.toString()), null, units).call();
            if (!ok) {
                throw new IllegalArgumentException("shop " + version.name() + " does not compile:\n" + errors);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What the cart's {@code checksum()} answers for {@code owner} and these items, in this order. */
    static String checksum(String owner, List<String> itemIds) {
        StringBuilder text = new StringBuilder(owner).append('|');
        for (String id : itemIds) {
            text.append(id).append('*').append(quantity(id)).append('@').append(priceCents(id)).append(';');
        }
        CRC32 crc = new CRC32();
        crc.update(text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return Long.toHexString(crc.getValue());
    }

    /** The quantity a client adds of item {@code id} (1 to 5, from the id). */
    static int quantity(String id) {
        return Math.floorMod(id.hashCode(), 5) + 1;
    }

    /** The price a client adds item {@code id} at, in cents (from the id). */
    static long priceCents(String id) {
        return 100 + Math.floorMod(id.hashCode() * 31L, 9_900);
    }

    /** The query of an add of item {@code id}. */
    static String add(String id) {
        return "add&item=" + id + "&qty=" + quantity(id) + "&price=" + priceCents(id);
    }
}
