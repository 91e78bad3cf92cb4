package io.sessionrep.tomcat.dist;

import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;

/**
 * One user of the shop and what its session must hold: the items whose add was answered 200, in order.
 * Used by one thread at a time.
 */
final class Shopper {
    final String name;
    /** Whether its requests follow the route of its cookie (a sticky balancer) or go round robin. */
    final boolean sticky;
    final User browser;
    /** The items of every add answered 200, in the order they were added. */
    final List<String> items = new ArrayList<>();
    private int added;
    /** The build that answered its last acknowledged add. */
    String build;
    /** Why this session cannot be used on: lost, stale, an answer that leaves its content unknown; or null. */
    String failure;

    Shopper(String name, boolean sticky, HttpClient http) {
        this.name = name;
        this.sticky = sticky;
        this.browser = new User(http, ShopApp.PATH);
    }

    /** The id of the next item this shopper adds. */
    String nextItem() {
        return name + "-i" + added;
    }

    void acknowledged(String item) {
        if (!items.contains(item)) {
            items.add(item);
        }
        added++;
    }

    /** The node name in the cookie's route suffix ({@code <id>.node-a}), or null without a cookie. */
    String route() {
        String cookie = browser.cookie;
        return cookie == null ? null : cookie.substring(cookie.lastIndexOf('.') + 1);
    }

    /**
     * What is wrong with a 200 answer for this session, given the items it must hold, or null: not the
     * session created at login, another user, or a cart or counter that is not exactly those items.
     */
    String mismatch(Reply reply, List<String> expected) {
        List<String> wrong = new ArrayList<>();
        expect(wrong, reply, "created", "false");
        expect(wrong, reply, "user", name);
        expect(wrong, reply, "counter", String.valueOf(expected.size()));
        expect(wrong, reply, "cart", "true");
        if (wrong.isEmpty()) {
            expect(wrong, reply, "items", String.valueOf(expected.size()));
            expect(wrong, reply, "quantity", String.valueOf(expected.stream().mapToInt(ShopApp::quantity).sum()));
            expect(wrong, reply, "owner", name);
            expect(wrong, reply, "checksum", ShopApp.checksum(name, expected));
        }
        return wrong.isEmpty() ? null : String.join(", ", wrong) + " in " + reply.body();
    }

    private static void expect(List<String> wrong, Reply reply, String field, String value) {
        String actual = reply.body().contains("\"" + field + "\":") ? reply.field(field) : "(none)";
        if (!value.equals(actual)) {
            wrong.add(field + " " + actual + " (expected " + value + ")");
        }
    }

    @Override
    public String toString() {
        return name + (sticky ? " (sticky)" : " (round robin)") + ", " + items.size() + " items, cookie "
                + browser.cookie + (failure == null ? "" : ": " + failure);
    }
}
