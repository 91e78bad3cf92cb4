#!/usr/bin/env bash
# The JMH benchmarks of perf/runner with JMH's own command line, e.g.
#   perf/jmh.sh                                   # all of them (about 4 minutes)
#   perf/jmh.sh RequestEndBenchmark -p mode=async -p deltaKiB=10
#   perf/jmh.sh -l                                # list them
# (perf/run.sh --scenarios=jmh runs them too and puts the results into a report.)
set -euo pipefail
cd "$(dirname "$0")/.."
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! mvn -q -B -DskipTests package -pl perf/runner -am >"$log" 2>&1; then
  cat "$log"
  exit 1
fi
cp="perf/runner/target/classes:$(cat perf/runner/target/runner.classpath)"
exec java -cp "$cp" org.openjdk.jmh.Main -jvmArgsAppend "-Xms512m -Xmx512m -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true" "$@"
