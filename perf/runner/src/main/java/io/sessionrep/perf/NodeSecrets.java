package io.sessionrep.perf;

import io.sessionrep.testservlet.NetworkCommands;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * What ours' secured configurations need, made once per cluster in its work directory as an operator would: a
 * cluster key in a file ({@code clusterKey="file:..."}) and, for mutual TLS, one key pair that every node presents
 * with a trust store holding its certificate (the JDK's keytool; an EC key, valid 2 days). One key pair for all nodes
 * costs the handshakes and records what a key pair per node would.
 */
record NodeSecrets(Path clusterKey, Path keystore, Path truststore) {

    static final String PASSWORD = "perf-store-password";

    static NodeSecrets make(Path dir, boolean tls) throws IOException {
        Files.createDirectories(dir);
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        Path clusterKey = Files.writeString(dir.resolve("cluster.key"), Base64.getEncoder().encodeToString(key));
        if (!tls) {
            return new NodeSecrets(clusterKey, null, null);
        }
        Path keystore = dir.resolve("node.p12");
        Path certificate = dir.resolve("node.cer");
        Path truststore = dir.resolve("trust.p12");
        keytool("-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=sessionrep-perf",
                "-validity", "2", "-storetype", "pkcs12", "-keystore", keystore.toString(), "-storepass", PASSWORD);
        keytool("-exportcert", "-alias", "node", "-keystore", keystore.toString(), "-storepass", PASSWORD,
                "-file", certificate.toString());
        keytool("-importcert", "-noprompt", "-alias", "node", "-file", certificate.toString(), "-storetype", "pkcs12",
                "-keystore", truststore.toString(), "-storepass", PASSWORD);
        return new NodeSecrets(clusterKey, keystore, truststore);
    }

    /** The {@code <Manager>} attributes that use these secrets (docs/install-tomcat.md's option names). */
    String managerAttributes() {
        if (keystore == null) {
            return "clusterKey=\"file:" + clusterKey + "\"";
        }
        return "tlsKeystore=\"" + keystore + "\" tlsKeystorePassword=\"" + PASSWORD + "\" tlsTruststore=\"" + truststore
                + "\" tlsTruststorePassword=\"" + PASSWORD + "\"";
    }

    /** keytool of the JDK running the runner; fails with its output if it fails. */
    private static void keytool(String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        NetworkCommands.run(true, command.toArray(String[]::new));
    }
}
