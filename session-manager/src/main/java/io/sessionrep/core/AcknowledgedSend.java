package io.sessionrep.core;

import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.MalformedMessageException;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;

import java.util.concurrent.CompletableFuture;

/**
 * Sends one update to one backup and waits for its acknowledgement (sync-mode request ends, and the
 * rebalancer's confirmed copies). A backup that answers it needs a full copy gets one.
 */
final class AcknowledgedSend {
    private final NodeState node;
    private final BackupRefusals refusals;

    AcknowledgedSend(NodeState node, BackupRefusals refusals) {
        this.node = node;
        this.refusals = refusals;
    }

    /** An update with its wire bytes (acknowledgement requested): encoded once, whatever the number of backups. */
    record Encoded(SessionUpdate update, byte[] bytes) {
    }

    Encoded encode(SessionUpdate update) {
        return new Encoded(update, node.wire.encode(new Message.Update(update, true)));
    }

    /**
     * Sends an update that the backup acknowledges; a backup that needs a full copy gets one, serialized
     * from the live session if need be ({@code fromRequest}: the caller is the request that just used it, so
     * the copy may be read while the session counts as in use). A full copy that cannot be had now leaves
     * the backup to the next request end (answered {@link Message.AckStatus#NEED_FULL}).
     */
    CompletableFuture<Message.AckStatus> send(Member target, SessionUpdate update, boolean fromRequest) {
        return send(target, encode(update), fromRequest);
    }

    /** As {@link #send(Member, SessionUpdate, boolean)}, for an update already encoded (sent to several backups). */
    CompletableFuture<Message.AckStatus> send(Member target, Encoded update, boolean fromRequest) {
        return request(target, update).thenCompose(status -> resyncIfAsked(target, update, status, fromRequest, false));
    }

    /**
     * A sync request end's update to the session's first backup, sent on the request thread and outside the
     * session's monitor ({@link io.sessionrep.core.transport.ReplicationTransport#requestInline}): the transport may
     * carry it on this thread, instead of handing it to its own threads. The backup may get it more than once (a
     * version it already holds is acknowledged as applied). A backup asking for a full copy gets one only while it
     * is still a backup of the session: the update may reach it after its release, and must not bring the copy back.
     *
     * @param noLongerNeeded null, or a stage that completes once this reply no longer decides the request (another
     *                       backup stored the update, or left the view): the transport then lets this thread go
     *                       shortly after, and the acknowledgement, if it comes, counts when it comes (a backup that
     *                       hangs holds the request only that long)
     */
    CompletableFuture<Message.AckStatus> sendInline(Member target, Encoded update, java.time.Duration timeout,
                                                    CompletableFuture<?> noLongerNeeded) {
        countSent(update);
        return node.transport.requestInline(target, update.bytes(), timeout, noLongerNeeded)
                .thenCompose(reply -> resyncIfAsked(target, update, acknowledgement(target, update, reply), true, true));
    }

    /** When the backup answered that it needs a full copy, sends one (see {@link #send}). */
    private CompletableFuture<Message.AckStatus> resyncIfAsked(Member target, Encoded update, Message.AckStatus status,
                                                               boolean fromRequest, boolean onlyToABackup) {
        if (status != Message.AckStatus.NEED_FULL) {
            return CompletableFuture.completedFuture(status);
        }
        PrimaryEntry entry = node.primaries.get(update.update().sessionId());
        if (entry == null) {
            return CompletableFuture.completedFuture(Message.AckStatus.INVALIDATED);
        }
        SessionUpdate full;
        synchronized (entry) {
            if (onlyToABackup && !entry.ownership.isGone() && !entry.syncedBackups.contains(target.name())) {
                return CompletableFuture.completedFuture(status); // released meanwhile: no copy back
            }
            full = entry.ownership.isGone() ? null : entry.fullCopyForBackup(node.attributes, fromRequest);
            if (full == null) {
                entry.syncedBackups.remove(target.name()); // the next request end sends it a full copy
                return CompletableFuture.completedFuture(entry.ownership.isGone() ? Message.AckStatus.INVALIDATED : status);
            }
        }
        return request(target, encode(full));
    }

    /**
     * Sends an update that the backup acknowledges, and nothing more: a backup that needs a full copy is
     * left as it is (a former backup, about to be released, must not get a copy back).
     */
    CompletableFuture<Message.AckStatus> sendWithoutResync(Member target, Encoded update) {
        return request(target, update);
    }

    private CompletableFuture<Message.AckStatus> request(Member target, Encoded encoded) {
        countSent(encoded);
        return node.transport.request(target, encoded.bytes(), node.config.syncTimeout())
                .thenApply(reply -> acknowledgement(target, encoded, reply));
    }

    private void countSent(Encoded encoded) {
        SessionUpdate update = encoded.update();
        (update.full() ? node.metrics.fullSent : node.metrics.deltaSent).increment();
        node.metrics.bytesSent.increment(encoded.bytes().length);
        node.metrics.valueBytesSent.increment(update.valueBytes());
    }

    /**
     * The status the backup's reply carries; IllegalStateException when the reply is not an acknowledgement of this
     * update: of its version and (protocol 4 on, where the acknowledgement names it) its session.
     */
    private Message.AckStatus acknowledgement(Member target, Encoded encoded, byte[] reply) {
        SessionUpdate update = encoded.update();
        try {
            if (WireCodec.decode(reply) instanceof Message.Ack ack) {
                if (ack.version() != update.toVersion()
                        || (ack.sessionId() != null && !ack.sessionId().equals(update.sessionId()))) {
                    node.metrics.rejectedMalformed.increment();
                    throw new IllegalStateException("a reply from " + target.name() + " acknowledges another update ("
                            + (ack.sessionId() == null ? "" : "session " + LogIds.shortForm(ack.sessionId()) + " ")
                            + "version " + ack.version() + ") than session " + LogIds.shortForm(update.sessionId())
                            + " version " + update.toVersion());
                }
                refusals.answered(update.sessionId(), target, ack.status());
                return ack.status();
            }
        } catch (MalformedMessageException e) {
            node.metrics.rejectedMalformed.increment();
        }
        throw new IllegalStateException("unexpected reply from " + target.name());
    }

}
