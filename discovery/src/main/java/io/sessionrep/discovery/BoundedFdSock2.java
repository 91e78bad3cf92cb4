package io.sessionrep.discovery;

import org.jgroups.blocks.cs.NioServer;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.FD_SOCK2;

/**
 * FD_SOCK2 whose server refuses frames longer than {@link #MAX_FRAME_LENGTH}. Its port (the transport
 * port + 100 ..) stays plain in every mode and only ever carries a CONNECT handshake of a few hundred
 * bytes, but JGroups leaves its length unbounded: a 5-byte frame announcing 2 GB would make the node
 * allocate 2 GB. Nothing else changes, on the wire neither: it takes FD_SOCK2's protocol id, so it talks to
 * plain FD_SOCK2.
 */
public class BoundedFdSock2 extends FD_SOCK2 {

    /** The longest frame the failure-detection server accepts: 64 KiB. */
    public static final int MAX_FRAME_LENGTH = 64 * 1024;

    public BoundedFdSock2() {
        setId(ClassConfigurator.getProtocolId(FD_SOCK2.class));
    }

    @Override
    protected NioServer createServer(int[] bindPorts) {
        NioServer server = super.createServer(bindPorts);
        server.setMaxLength(MAX_FRAME_LENGTH); // before it starts accepting connections, which copy the bound
        return server;
    }
}
