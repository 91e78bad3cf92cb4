package io.sessionrep.discovery;

import io.sessionrep.core.config.ConfigException;
import org.jgroups.JChannel;
import org.jgroups.conf.ProtocolStackConfigurator;
import org.jgroups.conf.XmlConfigurator;
import org.jgroups.protocols.pbcast.GMS;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code jgroups-config}: an expert's own JGroups XML stack instead of the generated one. Checked when the
 * node starts, each failure a {@link ConfigException} naming {@code jgroups-config} and the file: it must
 * exist and be readable, parse as a JGroups configuration, every protocol and attribute in it must be
 * known to JGroups (the channel is created, which instantiates and initializes the protocols), the first
 * protocol must be a transport and the stack must have GMS (membership).
 */
final class XmlStack {

    static final String OPTION = "jgroups-config";
    private static final String EXPECTED = "expected a readable JGroups XML stack file (for a start, copy tcp.xml"
            + " or udp.xml from the jgroups jar)";

    private XmlStack() {
    }

    /** A new channel, not yet connected, whose stack is the file at {@code location}. */
    static JChannel channel(String location) {
        Path path = Path.of(location);
        String shown = "'" + location + "'" + (path.isAbsolute() ? "" : " (" + path.toAbsolutePath() + ")");
        if (!Files.exists(path)) {
            throw new ConfigException(OPTION, shown + " does not exist; " + EXPECTED);
        }
        if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
            throw new ConfigException(OPTION, shown + " is not a readable file; " + EXPECTED);
        }
        ProtocolStackConfigurator configurator;
        try (InputStream in = Files.newInputStream(path)) {
            configurator = XmlConfigurator.getInstance(in);
        } catch (IOException | RuntimeException e) {
            throw problem(shown + " is not a JGroups XML configuration: " + StartFailures.rootMessage(e), e);
        }
        if (configurator.getProtocolStack() == null || configurator.getProtocolStack().isEmpty()) {
            throw new ConfigException(OPTION, shown + " lists no protocols; " + EXPECTED);
        }
        JChannel channel;
        try {
            channel = new JChannel(configurator);
        } catch (Exception e) {
            throw problem(shown + " cannot be used as a JGroups stack: " + StartFailures.rootMessage(e), e);
        }
        String missing = channel.getProtocolStack().getTransport() == null ? "a transport (UDP, TCP, ...) as its"
                + " first protocol" : channel.getProtocolStack().findProtocol(GMS.class) == null
                ? "GMS (group membership)" : null;
        if (missing != null) {
            channel.close();
            throw new ConfigException(OPTION, shown + " has no " + missing + "; " + EXPECTED);
        }
        // daemon threads as in the generated stacks: the pool's, the acceptor's and connections', the bundler's
        // senders (created from connect on); only the timer's one thread was made by JGroups' factory at creation,
        // and the transport's stop ends it
        channel.getProtocolStack().getTransport().setThreadFactory(new DaemonThreadFactory());
        return channel;
    }

    private static ConfigException problem(String message, Exception cause) {
        ConfigException e = new ConfigException(OPTION, message + "; " + EXPECTED);
        e.initCause(cause);
        return e;
    }
}
