package io.sessionrep.core.placement;

import io.sessionrep.core.transport.Member;

import java.util.ArrayList;
import java.util.List;

/**
 * Chooses the backups of a session by rendezvous (highest-random-weight) hashing: every member gets a
 * pseudo-random score from (session id, member name) and the best-scoring members win. Any node computes
 * the same answer from the same membership without asking anyone; load spreads evenly; when a member
 * joins or leaves, only the sessions whose top scores involve it move.
 *
 * <p>Machine aware: members on another machine than the primary always rank before colocated ones, and
 * with {@code allowColocation=false} colocated members are never chosen.
 */
public final class BackupPlacement {
    private final int writeQuota;
    private final boolean allowColocation;

    public BackupPlacement(int writeQuota, boolean allowColocation) {
        this.writeQuota = writeQuota;
        this.allowColocation = allowColocation;
    }

    /** Up to {@code write-quota} backups (fewer when not enough members qualify), best first. */
    public List<Member> backups(String sessionId, Member primary, List<Member> members) {
        if (writeQuota == 0) {
            return List.of();
        }
        int idHash = sessionId.hashCode();
        List<Scored> candidates = new ArrayList<>(members.size());
        for (Member m : members) {
            if (m.name().equals(primary.name())) {
                continue;
            }
            boolean colocated = m.machineId().equals(primary.machineId());
            if (colocated && !allowColocation) {
                continue;
            }
            candidates.add(new Scored(m, colocated, score(idHash, m.name())));
        }
        candidates.sort(BackupPlacement::bestFirst);
        List<Member> chosen = new ArrayList<>(Math.min(writeQuota, candidates.size()));
        for (int i = 0; i < candidates.size() && chosen.size() < writeQuota; i++) {
            chosen.add(candidates.get(i).member());
        }
        return chosen;
    }

    /** True when {@code candidate} is among the backups of the session under this membership. */
    public boolean isBackup(String sessionId, Member primary, List<Member> members, String candidate) {
        for (Member m : backups(sessionId, primary, members)) {
            if (m.name().equals(candidate)) {
                return true;
            }
        }
        return false;
    }

    /** Members on another machine first, then by score, highest first (no boxing: this runs on every request end). */
    private static int bestFirst(Scored a, Scored b) {
        if (a.colocated() != b.colocated()) {
            return a.colocated() ? 1 : -1;
        }
        return Long.compare(b.score(), a.score());
    }

    static long score(int idHash, String memberName) {
        long x = ((long) idHash << 32) ^ (memberName.hashCode() & 0xffffffffL);
        // fmix64 from MurmurHash3: full avalanche, so scores of different members are independent
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        x ^= x >>> 33;
        x *= 0xc4ceb9fe1a85ec53L;
        x ^= x >>> 33;
        return x;
    }

    private record Scored(Member member, boolean colocated, long score) {
    }
}
