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

    static Encoded encode(SessionUpdate update) {
        return new Encoded(update, WireCodec.encode(new Message.Update(update, true)));
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
        return request(target, update).thenCompose(status -> {
            if (status != Message.AckStatus.NEED_FULL) {
                return CompletableFuture.completedFuture(status);
            }
            PrimaryEntry entry = node.primaries.get(update.update().sessionId());
            if (entry == null) {
                return CompletableFuture.completedFuture(Message.AckStatus.INVALIDATED);
            }
            SessionUpdate full;
            synchronized (entry) {
                full = entry.removed ? null : entry.fullCopyForBackup(node.attributes, fromRequest);
                if (full == null) {
                    entry.syncedBackups.remove(target.name()); // the next request end sends it a full copy
                    return CompletableFuture.completedFuture(entry.removed ? Message.AckStatus.INVALIDATED : status);
                }
            }
            return request(target, encode(full));
        });
    }

    /**
     * Sends an update that the backup acknowledges, and nothing more: a backup that needs a full copy is
     * left as it is (a former backup, about to be released, must not get a copy back).
     */
    CompletableFuture<Message.AckStatus> sendWithoutResync(Member target, Encoded update) {
        return request(target, update);
    }

    private CompletableFuture<Message.AckStatus> request(Member target, Encoded encoded) {
        SessionUpdate update = encoded.update();
        byte[] bytes = encoded.bytes();
        (update.full() ? node.metrics.fullSent : node.metrics.deltaSent).increment();
        node.metrics.bytesSent.increment(bytes.length);
        node.metrics.valueBytesSent.increment(update.valueBytes());
        return node.transport.request(target, bytes, node.config.syncTimeout()).thenApply(reply -> {
            try {
                if (WireCodec.decode(reply) instanceof Message.Ack ack) {
                    refusals.answered(update.sessionId(), target, ack.status());
                    return ack.status();
                }
            } catch (MalformedMessageException e) {
                node.metrics.rejectedMalformed.increment();
            }
            throw new IllegalStateException("unexpected reply from " + target.name());
        });
    }

}
