package io.sessionrep.perf.jmh;

import io.sessionrep.discovery.SealedBytes;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * What {@code cluster-key} costs per frame: sealing a frame of {@code bytes} and opening it again, as a node seals
 * every channel message and data-lane frame it sends and opens every one it receives. Not part of
 * {@code perf/run.sh --scenarios=jmh}; run it with {@code perf/jmh.sh SealingBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SealingBenchmark {

    /** A heartbeat-sized channel message, a 10 KiB update, a lane frame of five 10 KiB updates. */
    @Param({"100", "10240", "51200"})
    public int bytes;

    private SealedBytes sender;
    private SealedBytes receiver;
    private byte[] plain;

    @Setup(Level.Trial)
    public void start() {
        sender = SealedBytes.forClusterKey("sealing benchmark key, not a secret", "bench");
        receiver = SealedBytes.forClusterKey("sealing benchmark key, not a secret", "bench");
        plain = new byte[bytes];
        new Random(1).nextBytes(plain);
    }

    @Benchmark
    public byte[] sealThenOpen() throws SealedBytes.Refused {
        return receiver.open(sender.seal(plain));
    }
}
