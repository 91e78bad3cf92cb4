package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MessageReceiver;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;

/** Records what a transport delivers; answers requests with a configurable handler (echo by default). */
public final class RecordingReceiver implements MessageReceiver {

    public record Received(Member sender, byte[] message) {
    }

    public final List<Received> messages = new CopyOnWriteArrayList<>();
    public final List<List<Member>> views = new CopyOnWriteArrayList<>();
    private volatile BiFunction<Member, byte[], byte[]> handler = (sender, message) -> message;

    public RecordingReceiver answering(BiFunction<Member, byte[], byte[]> handler) {
        this.handler = handler;
        return this;
    }

    @Override
    public byte[] onMessage(Member sender, byte[] message) {
        messages.add(new Received(sender, message));
        return handler.apply(sender, message);
    }

    @Override
    public void onMembershipChange(List<Member> members) {
        views.add(List.copyOf(members));
    }

    public List<Member> lastView() {
        return views.isEmpty() ? List.of() : views.get(views.size() - 1);
    }
}
