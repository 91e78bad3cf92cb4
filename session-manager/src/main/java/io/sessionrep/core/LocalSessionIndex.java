package io.sessionrep.core;

import io.sessionrep.core.store.BackupStore;
import io.sessionrep.core.wire.Message;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.regex.Pattern;

/**
 * This node's answer to an operator's query ({@link Message.AdminQuery}): the sessions it owns and, for sessions
 * whose owner left and that no member took over yet, the copies it holds. One pass over the sessions held here,
 * reading what the core keeps anyway (version, sizes, backups, last access) and the principal attribute
 * ({@link SessionPrincipals}); rows are built only for the at most {@code offset + limit} newest matches (a bounded
 * heap), and the short form of an id (a SHA-256) is computed only for those, except to resolve one.
 */
final class LocalSessionIndex {
    private static final Pattern SHORT_FORM = Pattern.compile("#[0-9a-f]{8}");
    private static final Comparator<Found> NEWEST_FIRST = Comparator.comparingLong(Found::lastAccessedTime).reversed();

    /** The longest principal name a row carries (the operator's look-ups take names as long). */
    static final int MAX_NAME = 1024;

    private final NodeState node;

    LocalSessionIndex(NodeState node) {
        this.node = node;
    }

    /** One session found, before it becomes a row. */
    private record Found(String id, String owner, List<String> backups, long sizeBytes, long lastAccessedTime,
                         String principal) {
    }

    /**
     * The answer to {@code query}; null when the query is malformed (an argument that cannot name what it asks
     * for: counted as malformed, not answered).
     */
    Message.AdminReply answer(Message.AdminQuery query) {
        String argument = query.argument();
        boolean byPrincipal = query.kind() == Message.AdminKind.PRINCIPAL
                || query.kind() == Message.AdminKind.RESOLVE_PRINCIPAL;
        if ((byPrincipal && argument.isEmpty())
                || (query.kind() == Message.AdminKind.RESOLVE_SHORT_ID && !SHORT_FORM.matcher(argument).matches())
                || ((query.kind() == Message.AdminKind.LIST || query.kind() == Message.AdminKind.COUNT)
                    && !argument.isEmpty())) {
            return null;
        }
        int window = (int) Math.min(Message.AdminQuery.MAX_ROWS, (long) query.offset() + query.limit());
        PriorityQueue<Found> newest = new PriorityQueue<>(Math.min(window, 64) + 1, NEWEST_FIRST.reversed());
        int[] total = {0};
        boolean withPrincipal = query.kind() != Message.AdminKind.COUNT
                && query.kind() != Message.AdminKind.RESOLVE_SHORT_ID;
        scan(withPrincipal, found -> {
            if (!matches(query, found)) {
                return;
            }
            total[0]++;
            if (window == 0) {
                return;
            }
            newest.add(found);
            if (newest.size() > window) {
                newest.poll(); // the oldest of the window
            }
        });
        List<Found> kept = new ArrayList<>(newest);
        kept.sort(NEWEST_FIRST);
        boolean wholeIds = query.kind() == Message.AdminKind.RESOLVE_SHORT_ID
                || query.kind() == Message.AdminKind.RESOLVE_PRINCIPAL;
        List<Message.AdminRow> rows = new ArrayList<>();
        for (int i = Math.min(query.offset(), kept.size()); i < kept.size(); i++) {
            Found f = kept.get(i);
            rows.add(new Message.AdminRow(wholeIds ? f.id() : LogIds.shortForm(f.id()), f.owner(), f.backups(),
                    f.sizeBytes(), f.lastAccessedTime(), shown(f.principal())));
        }
        return new Message.AdminReply(total[0], rows);
    }

    /** The principal as a row shows it: at most {@link #MAX_NAME} characters (a reply's strings are bounded). */
    private static String shown(String principal) {
        return principal == null ? "" : principal.length() <= MAX_NAME ? principal : principal.substring(0, MAX_NAME);
    }

    private static boolean matches(Message.AdminQuery query, Found found) {
        return switch (query.kind()) {
            case COUNT, LIST -> true;
            case PRINCIPAL, RESOLVE_PRINCIPAL -> query.argument().equals(found.principal());
            case RESOLVE_SHORT_ID -> query.argument().equals(LogIds.shortForm(found.id()));
        };
    }

    /**
     * Every session this node owns, and every copy held here whose owner is no longer a member (owner empty): no
     * member serves it, and the next request for it promotes a copy.
     */
    private void scan(boolean withPrincipal, java.util.function.Consumer<Found> sink) {
        String self = node.self.name();
        for (PrimaryEntry entry : node.primaries.values()) {
            Found found;
            synchronized (entry) {
                if (entry.ownership.isGone()) {
                    continue;
                }
                SessionSnapshot live = entry.live;
                String id = entry.copy.sessionId();
                long accessed = live != null && !entry.copy.holdsValues()
                        ? live.lastAccessedTime() : entry.copy.lastAccessedTime();
                String principal = null;
                if (withPrincipal) {
                    principal = entry.copy.holdsValues() ? decoded(id, entry.copy.attribute(SessionPrincipals.ATTRIBUTE))
                            : live == null ? null : SessionPrincipals.nameIn(live.attribute(SessionPrincipals.ATTRIBUTE));
                }
                found = new Found(id, self, List.copyOf(entry.syncedBackups), entry.copy.valueBytes(), accessed, principal);
            }
            sink.accept(found);
        }
        for (BackupStore.Backup backup : node.backups.all()) {
            if (node.isMember(backup.owner.name())) {
                continue; // its owner answers for it
            }
            Found found;
            synchronized (backup.copy) {
                String id = backup.copy.sessionId();
                found = new Found(id, "", List.of(self), backup.copy.valueBytes(), backup.copy.lastAccessedTime(),
                        withPrincipal ? decoded(id, backup.copy.attribute(SessionPrincipals.ATTRIBUTE)) : null);
            }
            sink.accept(found);
        }
    }

    private String decoded(String sessionId, byte[] bytes) {
        return bytes == null ? null
                : SessionPrincipals.nameIn(node.attributes.read(sessionId, SessionPrincipals.ATTRIBUTE, bytes, "admin"));
    }
}
