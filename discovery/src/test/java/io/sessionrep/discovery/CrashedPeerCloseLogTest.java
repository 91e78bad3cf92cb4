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
    void onlyAFailedGoodbyeToAKilledPeerAndAConnectionClosedBeforeItSaidWhoItIsGoDownToDebug() {
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
        // JGroups' TcpServer.Acceptor: a connection that closed before saying who it is (a suspecting member's probe
        // of a live member, a port check); bytes that are not JGroups', or a failed TLS handshake, keep their warning
        String accept = "JGRP000006: %s: failed accepting connection from peer %s: %s";
        java.io.EOFException eof = new java.io.EOFException();
        java.net.SocketException failedHandshake = new java.net.SocketException("Socket is closed");
        java.io.IOException cookie = new java.io.IOException("cookie does not match");
        log.warn(accept, "a", "s1", eof);
        log.warn(accept, "a", "s2", failedHandshake);
        log.warn(accept, "a", "s3", cookie);

        assertEquals(List.of(
                "debug [%s: failed sending graceful close to %s: %s, [127.0.0.1:7800, 127.0.0.1:7801, Broken pipe]]",
                "error [%s: failed handling message: %s, [127.0.0.1:7800, boom]]",
                "error [plain]",
                "warn [%s: %s, [a, b]]",
                "debug [" + accept + ", [a, s1, " + eof + "]]",
                "warn [" + accept + ", [a, s2, " + failedHandshake + "]]",
                "warn [" + accept + ", [a, s3, " + cookie + "]]"), calls);
    }
}
