package io.sessionrep.transport.jgroups;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Key stores for TLS tests, made with the JDK's keytool in a temporary directory: one self-signed EC key
 * pair per node ({@code <name>.p12}) and trust stores holding chosen nodes' certificates.
 */
public final class TestCertificates {
    public static final String PASSWORD = "test-store-password";

    private final Path dir;

    public TestCertificates(Path dir) {
        this.dir = dir;
    }

    /** {@code <name>.p12}: a new key pair and self-signed certificate for CN=name, valid 2 days. */
    public Path keystore(String name) throws Exception {
        Path store = dir.resolve(name + ".p12");
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                "-validity", "2", "-storetype", "pkcs12", "-keystore", store.toString(), "-storepass", PASSWORD);
        keytool("-exportcert", "-alias", name, "-keystore", store.toString(), "-storepass", PASSWORD,
                "-file", dir.resolve(name + ".cer").toString());
        return store;
    }

    /** {@code <storeName>.p12}: a trust store holding the certificates of the given (already created) nodes. */
    public Path truststore(String storeName, String... trusted) throws Exception {
        Path store = dir.resolve(storeName + ".p12");
        for (String name : trusted) {
            keytool("-importcert", "-noprompt", "-alias", name, "-file", dir.resolve(name + ".cer").toString(),
                    "-storetype", "pkcs12", "-keystore", store.toString(), "-storepass", PASSWORD);
        }
        return store;
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("keytool did not finish: " + command);
        }
        String output = new String(process.getInputStream().readAllBytes());
        if (process.exitValue() != 0) {
            throw new IOException("keytool failed (" + process.exitValue() + "): " + command + "\n" + output);
        }
    }
}
