package io.sessionrep.discovery;

import org.jgroups.logging.Log;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CrashedPeerCloseLogTest {

    @Test
    void onlyTheFailedGoodbyeToAKilledPeerGoesDownToDebug() {
        List<String> calls = new ArrayList<>();
        Log recording = (Log) Proxy.newProxyInstance(Log.class.getClassLoader(), new Class<?>[] {Log.class},
                (proxy, method, args) -> {
                    calls.add(method.getName() + " " + (args == null ? "" : Arrays.deepToString(args)));
                    return method.getReturnType() == boolean.class ? Boolean.TRUE : null;
                });
        Log log = new CrashedPeerCloseLog(recording);

        // exactly what JGroups' TcpConnection.closeGracefully logs when the peer's kernel reset the connection
        log.error("%s: failed sending graceful close to %s: %s", "127.0.0.1:7800", "127.0.0.1:7801", "Broken pipe");
        log.error("%s: failed handling message: %s", "127.0.0.1:7800", "boom");
        log.error("plain");
        log.warn("%s: %s", "a", "b");

        assertEquals(List.of(
                "debug [%s: failed sending graceful close to %s: %s, [127.0.0.1:7800, 127.0.0.1:7801, Broken pipe]]",
                "error [%s: failed handling message: %s, [127.0.0.1:7800, boom]]",
                "error [plain]",
                "warn [%s: %s, [a, b]]"), calls);
    }
}
