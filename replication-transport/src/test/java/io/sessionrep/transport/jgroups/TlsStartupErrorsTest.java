package io.sessionrep.transport.jgroups;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.TransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node with unusable TLS stores does not start, and the message names the option to fix. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TlsStartupErrorsTest {
    @TempDir
    static Path dir;
    private static Path keystore;
    private static Path truststore;
    private final TestNodes nodes = new TestNodes();

    @BeforeAll
    static void stores() throws Exception {
        TestCertificates certificates = new TestCertificates(dir);
        keystore = certificates.keystore("a");
        truststore = certificates.truststore("trust", "a");
    }

    @AfterEach
    void closeNodes() {
        nodes.close();
    }

    private String failure(UnaryOperator<ReplicationConfig.Builder> change) throws Exception {
        int port = TestNodes.freePorts(1)[0];
        ReplicationConfig config = change.apply(TlsClusterTest.withTls(nodes.staticNode("a", port), keystore, truststore))
                .build();
        JGroupsTransport transport = nodes.track(new JGroupsTransport(config));
        String message = assertThrows(TransportException.class, () -> transport.start(new RecordingReceiver()))
                .getMessage();
        assertFalse(message.contains(TestCertificates.PASSWORD), "never the password: " + message);
        return message;
    }

    @Test
    void missingKeystoreIsNamed() throws Exception {
        String message = failure(b -> b.tlsKeystore(dir.resolve("missing.p12").toString()));
        assertTrue(message.startsWith("tls-keystore: ") && message.contains("does not exist"), message);
    }

    @Test
    void wrongPasswordIsNamed() throws Exception {
        String keystoreMessage = failure(b -> b.tlsKeystorePassword("not-the-password"));
        assertTrue(keystoreMessage.startsWith("tls-keystore-password: ") && keystoreMessage.contains("wrong password"),
                keystoreMessage);
        String truststoreMessage = failure(b -> b.tlsTruststorePassword("not-the-password"));
        assertTrue(truststoreMessage.startsWith("tls-truststore-password: "), truststoreMessage);
    }

    @Test
    void aFileThatIsNotAKeyStoreIsNamed() throws Exception {
        Path text = Files.writeString(dir.resolve("notes.txt"), "this is not a key store\n".repeat(20));
        String message = failure(b -> b.tlsTruststore(text.toString()));
        assertTrue(message.startsWith("tls-truststore: ") && message.contains("is not a pkcs12 key store"), message);
    }

    @Test
    void aKeystoreWithoutAPrivateKeyIsNamed() throws Exception {
        String message = failure(b -> b.tlsKeystore(truststore.toString()));
        assertTrue(message.startsWith("tls-keystore: ") && message.contains("holds no private key"), message);
    }
}
