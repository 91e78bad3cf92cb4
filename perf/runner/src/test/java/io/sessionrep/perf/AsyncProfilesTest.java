package io.sessionrep.perf;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the runner adds up async-profiler's collapsed stacks. */
class AsyncProfilesTest {

    @Test
    void samplesCountForEveryComponentTheirStackHasAndTheirTopFrame() {
        AsyncProfiles.Summary s = AsyncProfiles.summarize(List.of(
                "[http-nio-8080-exec-1 tid=11];java/lang/Thread.run;io/sessionrep/core/RequestEndReplication.dispatch;"
                        + "net/openhft/hashing/XXH3.hash 30",
                "[sessionrep-sender-a tid=12];io/sessionrep/core/AsyncSender.run;jdk/internal/misc/Unsafe.park;"
                        + "entry_SYSCALL_64_after_hwframe_[k];__x64_sys_futex_[k];schedule_[k] 20",
                "[http-nio-8080-exec-2 tid=13];sun/nio/ch/SocketDispatcher.write0;ksys_write_[k];tcp_sendmsg_[k] 50",
                "not a stack line",
                ""));
        assertEquals(100, s.samples());
        assertEquals(70, s.byComponent().get("kernel (any)"));
        assertEquals(20, s.byComponent().get("futex (thread waits and wake-ups)"));
        assertEquals(50, s.byComponent().get("write"));
        assertEquals(30, s.byComponent().get("request end (RequestEndReplication)"));
        assertEquals(30, s.byComponent().get("XXH3 digests"));
        assertEquals(20, s.byComponent().get("async sender thread"));
        assertEquals(0, s.byComponent().get("JGroups bundler threads"));
        assertEquals(List.of("tcp_sendmsg_[k]", "net/openhft/hashing/XXH3.hash", "schedule_[k]"), List.copyOf(s.topSelf().keySet()));
    }

    @Test
    void theTableGivesSharesOfEachConfigurationsSamples() {
        AsyncProfiles.Summary s = AsyncProfiles.summarize(List.of("a;__x64_sys_futex_[k] 1", "a;b 3"));
        String md = AsyncProfiles.table(List.<String[]>of(new String[] {"tc-ours-async", "ours"}), java.util.Map.of("tc-ours-async", s));
        assertTrue(md.contains("| ours | 4 | 25.0 % | 25.0 % |"), md);
        assertTrue(md.contains("- on top of the stack, ours: `b` 75.0 %, `__x64_sys_futex_[k]` 25.0 %"), md);
    }

    @Test
    void theOptionTurnsItOn() {
        assertTrue(Options.parse("--async-profiler").asyncProfiler);
    }
}
