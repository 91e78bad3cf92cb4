package io.sessionrep.perf.jmh;

import io.sessionrep.core.metrics.ReplicationMetrics;
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
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The test servlet's {@code process} request at the core: every payload attribute rewritten (new
 * {@code byte[]}) and the Integer {@code version} incremented, then request end. Sync mode over the
 * in-memory transport, so every request sends exactly one update (async could coalesce). Besides the
 * time, the trial reports bytes per request from the product's metrics
 * ({@value ReplicationMetrics#BYTES_SENT}, {@value ReplicationMetrics#VALUE_BYTES_SENT}) into the side
 * file the runner reads.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class WireBytesBenchmark {

    /** number x KiB of the session, as the servlet's initialize. */
    @Param({"1x1", "2x5", "10x10", "10x50"})
    public String shape;

    /** The backup's wire protocol: 3, values with named fields; 2, field order (the previous release's). */
    @Param({"3"})
    public int protocol;

    private Nodes nodes;
    private TestSession session;
    private byte[][][] values;
    private int number;
    private int version;
    private long requests;
    private double bytesBefore;
    private double valueBytesBefore;

    @Setup(Level.Trial)
    public void start() throws InterruptedException {
        number = Integer.parseInt(shape.substring(0, shape.indexOf('x')));
        int size = Integer.parseInt(shape.substring(shape.indexOf('x') + 1)) * 1024;
        nodes = Nodes.start("memory", "sync", protocol);
        values = new byte[2][number][size];
        for (byte[][] generation : values) {
            for (byte[] v : generation) {
                ThreadLocalRandom.current().nextBytes(v);
            }
        }
        session = new TestSession("wire-1.bench-a", System.currentTimeMillis());
        process();
        nodes.primary.flush(Duration.ofSeconds(30));
        ReplicationMetrics m = nodes.primary.metrics();
        bytesBefore = m.bytesSent.count();
        valueBytesBefore = m.valueBytesSent.count();
        requests = 0;
    }

    @Benchmark
    public void process() {
        byte[][] generation = values[version & 1];
        for (int i = 0; i < number; i++) {
            session.set("attr-" + i, generation[i].clone());
        }
        session.set("version", ++version);
        nodes.primary.requestEnd(session, session.tracker);
        requests++;
    }

    @TearDown(Level.Trial)
    public void stop() {
        ReplicationMetrics m = nodes.primary.metrics();
        double bytes = (m.bytesSent.count() - bytesBefore) / requests;
        double valueBytes = (m.valueBytesSent.count() - valueBytesBefore) / requests;
        long modified = (long) number * values[0][0].length + Integer.BYTES;
        String label = protocol == io.sessionrep.core.wire.WireCodec.CURRENT ? shape : shape + " (protocol " + protocol + ")";
        Nodes.sideResult(String.format(Locale.ROOT, "wire\t%s\t%d\t%.1f\t%.1f\t%d", label, requests, bytes, valueBytes, modified));
        nodes.close();
    }
}
