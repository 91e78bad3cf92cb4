package io.sessionrep.discovery;

import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ReplicationConfig;
import org.jgroups.protocols.TCP;
import org.jgroups.util.TLS;
import org.jgroups.util.TLSClientAuth;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.Date;

/**
 * {@code tls-keystore} / {@code tls-truststore}: JGroups' TLS on the TCP transport, with mutual
 * authentication required ({@code client_auth=NEED}): a node accepts a connection only from a peer whose
 * certificate chains to a certificate of its trust store, and connects only to such peers. Every byte of
 * the transport (discovery, membership, failure-detection heartbeats, replication) then travels inside TLS.
 *
 * <p>The stores are checked before anything is opened, each failure a {@link ConfigException} naming the
 * option: the file exists and is readable, it is a key store of the configured type, the password opens
 * it, the key store holds a private key with a certificate that is valid today, the trust store holds at
 * least one certificate.
 */
final class TlsTransport {

    private TlsTransport() {
    }

    /** Checks the stores of {@code config} and turns TLS on in {@code tcp}. */
    static void enable(TCP tcp, ReplicationConfig config) {
        KeyStore keys = load("tls-keystore", config.tlsKeystore(), "tls-keystore-password",
                config.tlsKeystorePassword(), "tls-keystore-type", config.tlsKeystoreType());
        checkOwnKey(keys, config.tlsKeystore());
        KeyStore trust = load("tls-truststore", config.tlsTruststore(), "tls-truststore-password",
                config.tlsTruststorePassword(), "tls-truststore-type", config.tlsTruststoreType());
        checkTrusted(trust, config.tlsTruststore());
        TLS tls = tcp.tls();
        tls.enabled(true)
                .setKeystorePath(config.tlsKeystore())
                .setKeystorePassword(config.tlsKeystorePassword())
                .setKeystoreType(config.tlsKeystoreType())
                .setTruststorePath(config.tlsTruststore())
                .setTruststorePassword(config.tlsTruststorePassword())
                .setTruststoreType(config.tlsTruststoreType())
                .setClientAuth(TLSClientAuth.NEED);
    }

    static KeyStore load(String option, String location, String passwordOption, String password,
                         String typeOption, String type) {
        Path path = Path.of(location);
        String shown = "'" + location + "'" + (path.isAbsolute() ? "" : " (" + path.toAbsolutePath() + ")");
        if (!Files.exists(path)) {
            throw new ConfigException(option, shown + " does not exist; expected a " + type + " key store file");
        }
        if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
            throw new ConfigException(option, shown + " is not a readable file (user "
                    + System.getProperty("user.name") + "); expected a readable " + type + " key store file");
        }
        KeyStore store;
        try {
            store = KeyStore.getInstance(type);
        } catch (GeneralSecurityException e) {
            throw new ConfigException(typeOption, type + " is not supported by this JVM; expected pkcs12 or jks");
        }
        try (InputStream in = Files.newInputStream(path)) {
            store.load(in, password.toCharArray());
        } catch (IOException e) {
            if (e.getCause() instanceof UnrecoverableKeyException || String.valueOf(e.getMessage()).contains("password")) {
                throw new ConfigException(passwordOption, "does not open " + option + " " + shown
                        + " (wrong password); expected the password the store was created with");
            }
            throw new ConfigException(option, shown + " is not a " + type + " key store (" + e.getMessage()
                    + "); expected a " + type + " file, or set " + typeOption + " to the store's type (pkcs12 or jks)");
        } catch (GeneralSecurityException e) {
            throw new ConfigException(option, shown + " cannot be read as a " + type + " key store (" + e + ")");
        }
        return store;
    }

    private static void checkOwnKey(KeyStore keys, String location) {
        try {
            for (String alias : Collections.list(keys.aliases())) {
                if (keys.isKeyEntry(alias) && keys.getCertificate(alias) != null) {
                    Certificate certificate = keys.getCertificate(alias);
                    if (certificate instanceof X509Certificate x509) {
                        checkValidity(x509, alias, location);
                    }
                    return;
                }
            }
        } catch (GeneralSecurityException e) {
            throw new ConfigException("tls-keystore", "'" + location + "' cannot be read (" + e + ")");
        }
        throw new ConfigException("tls-keystore", "'" + location + "' holds no private key with a certificate;"
                + " expected this node's key and certificate (keytool -genkeypair, or a PKCS12 file from your CA)");
    }

    private static void checkValidity(X509Certificate certificate, String alias, String location) {
        try {
            certificate.checkValidity(new Date());
        } catch (CertificateExpiredException | CertificateNotYetValidException e) {
            throw new ConfigException("tls-keystore", "the certificate '" + alias + "' in '" + location
                    + "' is not valid now (valid from " + certificate.getNotBefore() + " to "
                    + certificate.getNotAfter() + "); expected a current certificate");
        }
    }

    private static void checkTrusted(KeyStore trust, String location) {
        try {
            for (String alias : Collections.list(trust.aliases())) {
                if (trust.getCertificate(alias) != null) {
                    return;
                }
            }
        } catch (GeneralSecurityException e) {
            throw new ConfigException("tls-truststore", "'" + location + "' cannot be read (" + e + ")");
        }
        throw new ConfigException("tls-truststore", "'" + location + "' holds no certificate; expected the"
                + " certificates of the peers to accept, or of the CA that signed them");
    }
}
