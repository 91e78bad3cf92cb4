package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.ProtocolRange;
import org.jgroups.Address;
import org.jgroups.stack.AddressGenerator;
import org.jgroups.util.ExtendedUUID;
import org.jgroups.util.NameCache;

import java.nio.charset.StandardCharsets;

/**
 * Makes a node's identity travel with its JGroups address: the address is an {@link ExtendedUUID}
 * carrying the node name, the machine id and the wire protocols the node reads, so every member can build the
 * {@link Member} of every other member, and agree on a protocol, from the view alone, without asking it.
 */
final class NodeIdentity implements AddressGenerator {

    static final String NAME_KEY = "sessionrep.name";
    static final String MACHINE_KEY = "sessionrep.machine-id";
    /** The port of the node's data lane ({@link io.sessionrep.transport.jgroups.lane.DataLane}), when it has one. */
    static final String LANE_PORT_KEY = "sessionrep.lane-port";
    /** The wire protocols the node reads ({@link ProtocolRange#toString}); absent on nodes that read only 2. */
    static final String PROTOCOLS_KEY = "sessionrep.protocols";
    /** Machine id shown for an address that does not carry one (not a sessionrep node). */
    static final String UNKNOWN_MACHINE = "unknown";

    private final Member local;
    private final int lanePort;
    private final ProtocolRange protocols;

    /** {@code lanePort}: 0 when this node has no data lane. */
    NodeIdentity(Member local, int lanePort, ProtocolRange protocols) {
        this.local = local;
        this.lanePort = lanePort;
        this.protocols = protocols;
    }

    NodeIdentity(Member local) {
        this(local, 0, ProtocolRange.SUPPORTED);
    }

    @Override
    public Address generateAddress() {
        return generateAddress(local.name());
    }

    @Override
    public Address generateAddress(String logicalName) {
        ExtendedUUID address = ExtendedUUID.randomUUID(logicalName)
                .put(NAME_KEY, local.name().getBytes(StandardCharsets.UTF_8))
                .put(MACHINE_KEY, local.machineId().getBytes(StandardCharsets.UTF_8))
                .put(PROTOCOLS_KEY, protocols.toString().getBytes(StandardCharsets.US_ASCII));
        if (lanePort > 0) {
            address.put(LANE_PORT_KEY, String.valueOf(lanePort).getBytes(StandardCharsets.US_ASCII));
        }
        return address;
    }

    /** The data lane port {@code address} carries; 0 when none (or not a number from 1 to 65535). */
    static int lanePortOf(Address address) {
        if (address instanceof ExtendedUUID uuid) {
            byte[] port = uuid.get(LANE_PORT_KEY);
            if (port != null && port.length <= 5) {
                try {
                    int p = Integer.parseInt(new String(port, StandardCharsets.US_ASCII));
                    return p > 0 && p <= 65535 ? p : 0;
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }

    /** The wire protocols {@code address} states it reads; {@link ProtocolRange#UNSTATED} when none (or unreadable). */
    static ProtocolRange protocolsOf(Address address) {
        if (address instanceof ExtendedUUID uuid) {
            byte[] stated = uuid.get(PROTOCOLS_KEY);
            if (stated != null) {
                ProtocolRange range = ProtocolRange.parse(new String(stated, StandardCharsets.US_ASCII));
                if (range != null) {
                    return range;
                }
            }
        }
        return ProtocolRange.UNSTATED;
    }

    /** The member an address stands for; falls back to the logical name for foreign addresses. */
    static Member memberOf(Address address) {
        if (address instanceof ExtendedUUID uuid) {
            byte[] name = uuid.get(NAME_KEY);
            byte[] machine = uuid.get(MACHINE_KEY);
            if (name != null && machine != null) {
                return new Member(new String(name, StandardCharsets.UTF_8), new String(machine, StandardCharsets.UTF_8));
            }
        }
        String logicalName = NameCache.get(address);
        return new Member(logicalName != null ? logicalName : String.valueOf(address), UNKNOWN_MACHINE);
    }
}
