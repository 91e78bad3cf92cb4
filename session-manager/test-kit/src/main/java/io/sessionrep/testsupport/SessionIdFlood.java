package io.sessionrep.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Session ids a client makes up, derived from one the container issued: ids of the same shape that no node
 * issued (each character replaced by a random one of its kind), and ids no node of the installation can have
 * issued (a character outside the alphabet, a wrong length, no route suffix or a route that cannot be a node
 * name, longer than a cluster message can carry).
 */
public final class SessionIdFlood {
    private static final String DIGITS = "0123456789";
    private static final String HEX_UPPER = "ABCDEF";
    private static final String HEX_LOWER = "abcdef";
    private static final String UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    private static final String LOWER = "abcdefghijklmnopqrstuvwxyz";

    private final String issued;
    private final Random random;

    /** Ids shaped like {@code issuedClusterId} (an id the container issued, without its route suffix). */
    public SessionIdFlood(String issuedClusterId, long seed) {
        this.issued = issuedClusterId;
        this.random = new Random(seed);
    }

    /** {@code count} ids of the issued shape, each with one of {@code routes} as its route suffix, in turn. */
    public List<String> wellFormed(int count, List<String> routes) {
        List<String> ids = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ids.add(lookalike() + "." + routes.get(i % routes.size()));
        }
        return ids;
    }

    /**
     * {@code count} ids that no node can have issued, about 30 bytes each on average (150 of them fit the 8 KiB
     * request header the containers accept by default).
     */
    public List<String> malformed(int count) {
        List<String> ids = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String id = lookalike();
            if (i % 30 == 0) {
                ids.add("7".repeat(120) + ".node-a"); // longer than the installation's ids
            } else if (i % 30 == 15) {
                ids.add(id + "." + "r".repeat(65)); // a route longer than a node name may be
            } else {
                ids.add(switch (i % 6) {
                    case 0 -> id; // no route suffix
                    case 1 -> id + ".node~a"; // a route that is no node name
                    case 2 -> id.substring(0, id.length() / 2) + "~" + id.substring(id.length() / 2 + 1) + ".node-a";
                    case 3 -> ".node-a"; // no id before the route
                    case 4 -> id.substring(0, 2) + ".node-a"; // too short
                    default -> id + ".node-a.node-b"; // a route of two names
                });
            }
        }
        return ids;
    }

    /** One id longer than a cluster message may carry (4,096 bytes), with a route suffix. */
    public String overMessageLimit() {
        StringBuilder id = new StringBuilder();
        while (id.length() < 4200) {
            id.append(lookalike());
        }
        return id + ".node-a";
    }

    private String lookalike() {
        StringBuilder id = new StringBuilder(issued.length());
        for (char c : issued.toCharArray()) {
            id.append(randomOfKind(c));
        }
        return id.toString();
    }

    private char randomOfKind(char c) {
        String kind = c >= '0' && c <= '9' ? DIGITS
                : c >= 'A' && c <= 'F' ? HEX_UPPER
                : c >= 'a' && c <= 'f' ? HEX_LOWER
                : c >= 'A' && c <= 'Z' ? UPPER
                : c >= 'a' && c <= 'z' ? LOWER
                : null;
        return kind == null ? c : kind.charAt(random.nextInt(kind.length()));
    }
}
