package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.Member;
import org.jgroups.Address;
import org.jgroups.View;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One JGroups view translated to {@link Member}s, immutable. Members keep view order (the same on every
 * node). Should two addresses carry the same member (a node restarted under its old name before the old
 * incarnation was detected as gone), the later one in the view, the newer incarnation, stands for it.
 */
final class Membership {

    static final Membership EMPTY = new Membership(List.of(), Map.of(), Map.of(), List.of());

    private final List<Member> members;
    private final Map<Member, Address> addressByMember;
    private final Map<Address, Member> memberByAddress;
    private final List<Member> shadowed;

    private Membership(List<Member> members, Map<Member, Address> addressByMember,
                       Map<Address, Member> memberByAddress, List<Member> shadowed) {
        this.members = members;
        this.addressByMember = addressByMember;
        this.memberByAddress = memberByAddress;
        this.shadowed = shadowed;
    }

    static Membership of(View view) {
        LinkedHashMap<Member, Address> latest = new LinkedHashMap<>();
        Map<Address, Member> byAddress = new HashMap<>();
        List<Member> shadowed = new ArrayList<>();
        for (Address address : view.getMembersRaw()) {
            Member member = NodeIdentity.memberOf(address);
            byAddress.put(address, member);
            if (latest.remove(member) != null) {
                shadowed.add(member);
            }
            latest.put(member, address); // re-inserted: takes the position of the later address
        }
        return new Membership(List.copyOf(latest.keySet()), Collections.unmodifiableMap(latest),
                Collections.unmodifiableMap(byAddress), List.copyOf(shadowed));
    }

    /** The members, in view order. */
    List<Member> members() {
        return members;
    }

    /** The address of {@code member}, or null if it is not in this view. */
    Address addressOf(Member member) {
        return addressByMember.get(member);
    }

    /** The member at {@code address}, or null if the address is not in this view. */
    Member memberAt(Address address) {
        return memberByAddress.get(address);
    }

    boolean contains(Address address) {
        return memberByAddress.containsKey(address);
    }

    /** Every address of this view, including those of shadowed incarnations. */
    Set<Address> addresses() {
        return memberByAddress.keySet();
    }

    /** Members that appeared twice in the view (see class comment); normally empty. */
    List<Member> shadowed() {
        return shadowed;
    }
}
