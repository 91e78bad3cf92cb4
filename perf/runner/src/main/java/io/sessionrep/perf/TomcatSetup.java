package io.sessionrep.perf;

import java.util.Locale;

/**
 * The session managers compared in one container: the official Tomcat 11 distribution, the same WAR
 * (test-servlet's {@code session-test.war} made {@code <distributable/>}), the same JVM options; only
 * what each manager's documentation asks for differs.
 */
public enum TomcatSetup {
    /** Tomcat's default {@code StandardManager}: no replication, the reference. */
    OFF("tc-off", "Tomcat StandardManager (replication off)", false, "JSESSIONID"),
    /** {@code <Cluster>} with {@code DeltaManager}: every node holds every session, asynchronous sends. */
    DELTA("tc-delta", "Tomcat DeltaManager", true, "JSESSIONID"),
    /**
     * {@code <Cluster>} with {@code BackupManager}: one backup per session, its default {@code mapSendOptions} 6
     * ({@code SEND_OPTIONS_SYNCHRONIZED_ACK | SEND_OPTIONS_USE_ACK}): a request's update waits until the backup
     * has received and processed it. The peer of ours sync.
     */
    BACKUP("tc-backup", "Tomcat BackupManager sync (mapSendOptions=6, its default)", true, "JSESSIONID"),
    /**
     * The same with {@code mapSendOptions="8"} ({@code SEND_OPTIONS_ASYNCHRONOUS}): the update is queued and sent
     * by the channel's dispatch thread, without acknowledgement. The peer of ours async.
     */
    BACKUP_ASYNC("tc-backup-async", "Tomcat BackupManager async (mapSendOptions=8)", true, "JSESSIONID"),
    /** Ours, as docs/install-tomcat.md says, {@code replicationMode} left at its default ({@code async}). */
    OURS_ASYNC("tc-ours-async", "sessionrep async, write-quota 1 (Tomcat)", true, "JSESSIONID"),
    /**
     * Ours async with {@code asyncLane="false"}: the sender's batches over the JGroups channel instead of the data
     * lane (as before the lane; only run when asked for by {@code --configs}).
     */
    OURS_ASYNC_CHANNEL("tc-ours-async-channel", "sessionrep async over the channel (asyncLane=false), write-quota 1 (Tomcat)",
            true, "JSESSIONID"),
    /** Ours async with {@code clusterKey} (every frame sealed; only run when asked for by {@code --configs}). */
    OURS_ASYNC_KEY("tc-ours-async-key", "sessionrep async with clusterKey, write-quota 1 (Tomcat)", true, "JSESSIONID"),
    /** Ours async with mutual TLS ({@code tlsKeystore}, {@code tlsTruststore}; only run when asked for by {@code --configs}). */
    OURS_ASYNC_TLS("tc-ours-async-tls", "sessionrep async with mutual TLS, write-quota 1 (Tomcat)", true, "JSESSIONID"),
    /** Ours with {@code replicationMode="sync"}. */
    OURS_SYNC("tc-ours-sync", "sessionrep sync, write-quota 1 (Tomcat)", true, "JSESSIONID"),
    /**
     * Ours sync with {@code dataLane="false"}: every update over the JGroups channel (only run when asked for by
     * {@code --configs}).
     */
    OURS_SYNC_CHANNEL("tc-ours-sync-channel", "sessionrep sync over the channel only (dataLane=false), write-quota 1 (Tomcat)",
            true, "JSESSIONID"),
    /**
     * Ours async with {@code dataLane="false"}: every update over the JGroups channel (only run when asked for by
     * {@code --configs}).
     */
    OURS_ASYNC_CHANNEL_ONLY("tc-ours-async-channel-only", "sessionrep async over the channel only (dataLane=false),"
            + " write-quota 1 (Tomcat)", true, "JSESSIONID"),
    /** Spring Session with Redis (Lettuce) as a filter in the WAR, one local {@code redis-server}. */
    REDIS("tc-redis", "Spring Session + Redis (Tomcat)", true, "SESSION"),
    /**
     * The floor, async: StandardManager plus perf-floor's filter, which writes each request's changed byte arrays
     * from the request thread straight into a socket to the other node (a yardstick, not a replicator: the other
     * node holds the bytes but cannot serve the session).
     */
    FLOOR_ASYNC("tc-floor-async", "floor: raw copy over a socket, async (Tomcat)", false, "JSESSIONID"),
    /** The floor, sync: the request also waits for the other node's one-byte acknowledgement. */
    FLOOR_SYNC("tc-floor-sync", "floor: raw copy over a socket, sync (Tomcat)", false, "JSESSIONID");

    private final String id;
    private final String label;
    private final boolean replicated;
    private final String cookie;

    TomcatSetup(String id, String label, boolean replicated, String cookie) {
        this.id = id;
        this.label = label;
        this.replicated = replicated;
        this.cookie = cookie;
    }

    /** The configuration id in reports and folders, e.g. {@code tc-backup}. */
    public String id() {
        return id;
    }

    public String label() {
        return label;
    }

    /** Whether a session survives its node (everything but StandardManager). */
    public boolean replicated() {
        return replicated;
    }

    /** The session cookie's name. */
    public String cookie() {
        return cookie;
    }

    /** Uses Tomcat's own {@code <Cluster>} (Tribes). */
    boolean tomcatCluster() {
        return this == DELTA || this == BACKUP || this == BACKUP_ASYNC;
    }

    /**
     * For ours: Tomcat's BackupManager in the same replication mode (ours sync beside BackupManager's default
     * synchronized acknowledgement, ours async beside its asynchronous sends), the like-with-like peer of every
     * comparison with BackupManager.
     */
    TomcatSetup sameModeBackupManager() {
        if (!ours()) {
            throw new IllegalArgumentException(id + " is not one of ours");
        }
        return sync() ? BACKUP : BACKUP_ASYNC;
    }

    /** Ours async and sync, each with BackupManager in the same mode, as the report tables pair them. */
    static final java.util.List<TomcatSetup> PAIRED_WITH_BACKUP_MANAGER = java.util.List.of(OURS_ASYNC, OURS_SYNC);

    boolean ours() {
        return this == OURS_ASYNC || this == OURS_SYNC || this == OURS_ASYNC_CHANNEL || channelOnly() || secured();
    }

    /** Ours with {@code dataLane="false"}: every update over the JGroups channel. */
    boolean channelOnly() {
        return this == OURS_SYNC_CHANNEL || this == OURS_ASYNC_CHANNEL_ONLY;
    }

    /** Ours in sync mode. */
    boolean sync() {
        return this == OURS_SYNC || this == OURS_SYNC_CHANNEL;
    }

    /** Ours with a cluster key or TLS: {@link NodeSecrets} made for the cluster. */
    boolean secured() {
        return this == OURS_ASYNC_KEY || this == OURS_ASYNC_TLS;
    }

    /** Run only when {@code --configs} names it (variants of ours async measured for one question). */
    boolean onlyWhenAsked() {
        return this == OURS_ASYNC_CHANNEL || channelOnly() || secured();
    }

    /** perf-floor's filter in the WAR ({@link Wars#floor}). */
    boolean floor() {
        return this == FLOOR_ASYNC || this == FLOOR_SYNC;
    }

    public static TomcatSetup byId(String id) {
        for (TomcatSetup s : values()) {
            if (s.id.equals(id) || s.name().toLowerCase(Locale.ROOT).equals(id)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown Tomcat configuration '" + id + "'");
    }
}
