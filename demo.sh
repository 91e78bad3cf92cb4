#!/usr/bin/env bash
# Fail-over demo: three replicated Jetty nodes on 127.0.0.1, a session created on node-a, node-a killed
# with kill -9, the same cookie served by node-b with the same checksum.
#
#   ./demo.sh                          run it, then keep the survivors up until Ctrl-C
#   ./demo.sh --exit                   run it and exit: 0 the session survived intact, 1 it did not
#   ./demo.sh --replication-mode=sync  any --name=value replication option goes to every node
#
# Node logs: test-servlet/target/demo-logs/. Builds what it needs first (incremental, tests skipped).
set -euo pipefail
cd "$(dirname "$0")"

echo "== Building the node (mvn package -pl test-servlet -am, tests skipped)"
build_log=$(mktemp)
trap 'rm -f "$build_log"' EXIT
if ! mvn -q -B -DskipTests package -pl test-servlet -am >"$build_log" 2>&1; then
    cat "$build_log"
    echo "build failed" >&2
    exit 1
fi
rm -f "$build_log"

# exec: Ctrl-C reaches the demo JVM, whose shutdown hook kills the node processes
exec java -Djava.net.preferIPv4Stack=true -cp test-servlet/target/sessionrep-node.jar \
    io.sessionrep.testservlet.ClusterDemo --log-dir=test-servlet/target/demo-logs "$@"
