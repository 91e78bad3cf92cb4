package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.Member;
import org.jgroups.Address;
import org.jgroups.View;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MembershipTest {

    private static Address address(String name, String machine) {
        return new NodeIdentity(new Member(name, machine)).generateAddress(name);
    }

    @Test
    void membersCarryNameAndMachineIdInViewOrder() {
        Address a = address("a", "m1");
        Address b = address("b", "m2");

        Membership membership = Membership.of(View.create(a, 1, a, b));

        assertEquals(List.of(new Member("a", "m1"), new Member("b", "m2")), membership.members());
        assertSame(b, membership.addressOf(new Member("b", "m2")));
        assertEquals(new Member("a", "m1"), membership.memberAt(a));
        assertTrue(membership.shadowed().isEmpty());
    }

    @Test
    void newerIncarnationOfARestartedNodeStandsForIt() {
        Address a = address("a", "m1");
        Address oldB = address("b", "m2");
        Address c = address("c", "m3");
        Address newB = address("b", "m2");

        Membership membership = Membership.of(View.create(a, 5, a, oldB, c, newB));

        assertEquals(List.of(new Member("a", "m1"), new Member("c", "m3"), new Member("b", "m2")), membership.members());
        assertSame(newB, membership.addressOf(new Member("b", "m2")));
        assertTrue(membership.contains(oldB), "the old incarnation is still in the view until detected");
        assertEquals(List.of(new Member("b", "m2")), membership.shadowed());
    }

    @Test
    void foreignAddressWithoutIdentityFallsBackToItsName() {
        Address plain = UUID.randomUUID();
        Member member = NodeIdentity.memberOf(plain);
        assertEquals(NodeIdentity.UNKNOWN_MACHINE, member.machineId());
        assertNull(Membership.EMPTY.memberAt(plain));
    }
}
