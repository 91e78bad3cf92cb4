package io.sessionrep.perf.jmh;

import io.sessionrep.core.testing.TestSession;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * What request end costs the request thread: one attribute of {@code deltaKiB} KiB was set ({@code value=bytes}),
 * or a web shop's cart and user profile ({@code value=cart}, {@link TypicalSession}: application classes and
 * records, where the value format matters), then {@code SessionReplicator.requestEnd}. {@code protocol}: the wire
 * protocol the backup reads (3: values with named fields; 2: field order, as the previous release reads). Async: snapshot and hand-off to the sender; sync: also the wait
 * for the backup's acknowledgement. Primary and backup are two replicators in this JVM over real JGroups
 * on 127.0.0.1 ({@code transport=jgroups}; {@code memory} is the core's in-memory test transport). 256
 * sessions in rotation, each already replicated once (so every measured call sends a delta).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RequestEndBenchmark {

    private static final int SESSIONS = 256;

    @Param({"async", "sync"})
    public String mode;

    @Param({"1", "10", "100"})
    public int deltaKiB;

    @Param({"jgroups"})
    public String transport;

    @Param({"bytes"})
    public String value;

    @Param({"3"})
    public int protocol;

    private Nodes nodes;
    private TestSession[] sessions;
    private Object[] values;
    private int next;

    @Setup(Level.Trial)
    public void start() throws InterruptedException {
        nodes = Nodes.start(transport, mode, protocol);
        if (value.equals("cart")) {
            @SuppressWarnings("unchecked")
            java.util.List<TypicalSession.CartItem> cart = (java.util.List<TypicalSession.CartItem>) TypicalSession.attributes().get("cart");
            java.util.List<TypicalSession.CartItem> changed = new java.util.ArrayList<>();
            for (TypicalSession.CartItem item : cart) { // another quantity: the bytes differ, so each request sends them
                changed.add(new TypicalSession.CartItem(item.sku(), item.name(), item.quantity() + 1, item.price()));
            }
            values = new Object[] {cart, changed};
        } else {
            byte[][] bytes = new byte[2][deltaKiB * 1024];
            ThreadLocalRandom.current().nextBytes(bytes[0]);
            ThreadLocalRandom.current().nextBytes(bytes[1]);
            values = bytes;
        }
        sessions = new TestSession[SESSIONS];
        long now = System.currentTimeMillis();
        for (int i = 0; i < SESSIONS; i++) {
            sessions[i] = new TestSession("bench-" + i + ".bench-a", now).set("payload", values[0])
                    .set("user", value.equals("cart") ? TypicalSession.attributes().get("user") : "user-" + i);
            nodes.primary.requestEnd(sessions[i], sessions[i].tracker);
        }
        nodes.primary.flush(Duration.ofSeconds(30));
    }

    @Benchmark
    public void requestEnd() {
        int i = next++;
        TestSession session = sessions[i & (SESSIONS - 1)];
        session.set("payload", values[(i >>> 8) & 1]);
        nodes.primary.requestEnd(session, session.tracker);
    }

    @TearDown(Level.Trial)
    public void stop() {
        nodes.close();
    }
}
