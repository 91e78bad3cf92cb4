package io.sessionrep.perf;

import io.sessionrep.perf.Samples.Stats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SamplesTest {

    @Test
    void discardsTheFirstFifthInStartOrderAndComputesTheStudysFigures(@TempDir Path dir) throws Exception {
        StringBuilder jtl = new StringBuilder("timeStamp,elapsed,label,responseCode,responseMessage,threadName,success\n");
        // written in end order, as JMeter does; starts 1000..1009 ms, elapsed 10..1 ms
        for (int i = 9; i >= 0; i--) {
            jtl.append(1000 + i).append(',').append(10 - i).append(',').append(i % 2 == 0 ? "process" : "destroy")
                    .append(",200,\"OK, fine\",users 1-1,").append(i != 9).append('\n');
        }
        Path file = dir.resolve("s.jtl");
        Files.writeString(file, jtl);

        Samples samples = Samples.read(file);
        List<Samples.Sample> steady = samples.steady();

        assertEquals(10, samples.all.size());
        assertEquals(8, steady.size());
        assertEquals(1002, steady.get(0).start());
        Stats stats = Stats.of(steady, Samples.span(steady));
        assertEquals(4.5, stats.mean(), 1e-9); // elapsed 8..1
        assertEquals(4, stats.p50());
        assertEquals(8, stats.p99());
        assertEquals(1, stats.errors());
        assertEquals((8 + 6 + 4 + 2) / 4.0, stats.processMean(), 1e-9);
        assertEquals(1000.0, stats.throughput(), 1e-6); // 8 samples from 1002 to 1010 ms (every one ends at 1010)
    }

    @Test
    void quotedCsvFieldsKeepTheirCommas() {
        assertEquals(List.of("1", "a,b", "say \"hi\"", ""), Samples.csv("1,\"a,b\",\"say \"\"hi\"\"\","));
    }
}
