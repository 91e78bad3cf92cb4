#!/bin/sh
# Gives multicast tests a network where IP multicast works, when the host's loopback does not carry it:
# a network namespace whose loopback has multicast on and a 224.0.0.0/4 route, joined to the host by a
# veth pair so the test JVM (outside) can reach the nodes' HTTP ports (inside).
#
#   multicast-netns.sh setup NAME INDEX   creates namespace NAME, veth NAME's pair and 10.251.INDEX.0/30;
#                                         prints "HOST_ADDRESS=10.251.INDEX.1" and "NS_ADDRESS=10.251.INDEX.2"
#   multicast-netns.sh teardown NAME      removes them again (idempotent)
#
# Needs root and iproute2. When `ip` is missing it installs iproute2 with apt-get (root only). Whatever
# cannot be done ends with exit code 3 and one line "SKIP: <reason>", which the test turns into a skip.
set -u

skip() {
    echo "SKIP: $*"
    exit 3
}

need_ip() {
    command -v ip >/dev/null 2>&1 && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing iproute2 (ip) with apt-get" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 >/dev/null 2>&1 \
            || { apt-get update -qq >/dev/null 2>&1 \
                 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 >/dev/null 2>&1; }
    fi
    command -v ip >/dev/null 2>&1 || skip "iproute2 (the ip command) is not installed and could not be installed"
}

[ $# -ge 2 ] || { echo "usage: $0 setup NAME INDEX | teardown NAME" >&2; exit 2; }
action=$1
name=$2
# interface names are at most 15 characters
veth_host="$(printf '%.12s' "$name")h"
veth_ns="$(printf '%.12s' "$name")n"

case "$action" in
setup)
    [ $# -eq 3 ] || { echo "usage: $0 setup NAME INDEX" >&2; exit 2; }
    index=$3
    [ "$(id -u)" = 0 ] || skip "creating a network namespace needs root (running as $(id -un))"
    need_ip
    out=$(ip netns add "$name" 2>&1) || skip "cannot create network namespace $name: $out"
    fail() {
        ip netns del "$name" 2>/dev/null
        ip link del "$veth_host" 2>/dev/null
        skip "$*"
    }
    out=$( { ip -n "$name" link set lo up \
             && ip -n "$name" link set lo multicast on \
             && ip -n "$name" route add 224.0.0.0/4 dev lo; } 2>&1) \
        || fail "cannot enable multicast on the loopback of namespace $name: $out"
    out=$( { ip link add "$veth_host" type veth peer name "$veth_ns" \
             && ip link set "$veth_ns" netns "$name" \
             && ip addr add "10.251.$index.1/30" dev "$veth_host" \
             && ip link set "$veth_host" up \
             && ip -n "$name" addr add "10.251.$index.2/30" dev "$veth_ns" \
             && ip -n "$name" link set "$veth_ns" up; } 2>&1) \
        || fail "cannot link namespace $name to the host with a veth pair: $out"
    echo "HOST_ADDRESS=10.251.$index.1"
    echo "NS_ADDRESS=10.251.$index.2"
    ;;
teardown)
    if command -v ip >/dev/null 2>&1; then
        ip netns del "$name" 2>/dev/null
        ip link del "$veth_host" 2>/dev/null
    fi
    exit 0
    ;;
*)
    echo "usage: $0 setup NAME INDEX | teardown NAME" >&2
    exit 2
    ;;
esac
