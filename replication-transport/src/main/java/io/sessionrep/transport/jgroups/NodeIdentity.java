package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.Member;
import org.jgroups.Address;
import org.jgroups.stack.AddressGenerator;
import org.jgroups.util.ExtendedUUID;
import org.jgroups.util.NameCache;

import java.nio.charset.StandardCharsets;

/**
 * Makes a node's identity travel with its JGroups address: the address is an {@link ExtendedUUID}
 * carrying the node name and the machine id, so every member can build the {@link Member} of every
 * other member from the view alone, without asking it.
 */
final class NodeIdentity implements AddressGenerator {

    static final String NAME_KEY = "sessionrep.name";
    static final String MACHINE_KEY = "sessionrep.machine-id";
    /** Machine id shown for an address that does not carry one (not a sessionrep node). */
    static final String UNKNOWN_MACHINE = "unknown";

    private final Member local;

    NodeIdentity(Member local) {
        this.local = local;
    }

    @Override
    public Address generateAddress() {
        return generateAddress(local.name());
    }

    @Override
    public Address generateAddress(String logicalName) {
        return ExtendedUUID.randomUUID(logicalName)
                .put(NAME_KEY, local.name().getBytes(StandardCharsets.UTF_8))
                .put(MACHINE_KEY, local.machineId().getBytes(StandardCharsets.UTF_8));
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
