package io.sessionrep.testservlet;

/**
 * What the servlet reports about a session's workload attributes.
 *
 * @param version    the {@code version} attribute; null when the session was never initialized
 * @param attributes how many {@code attr-i} attributes the session holds
 * @param bytes      their total size in bytes
 * @param checksum   hex SHA-256 over the sorted names and values of {@code version} and every {@code attr-i}
 */
public record WorkloadState(Integer version, int attributes, long bytes, String checksum) {
}
