#!/usr/bin/env bash
# The measurement of docs/benchmarks.md in one command:
#   perf/run.sh [--quick | --smoke] [--scenarios=1,2,3,4,5,6,7,8,8p,9,10,jmh] [--segment=S] [--run=NAME] ...  (--help)
# Builds what it needs with Maven (package only, nothing is installed: the Tomcat distribution, our Tomcat
# jar, the test WAR and Spring Session's jars included), then runs the scenario runner, which starts the
# nodes (and Redis) itself and writes perf/results/<run>/report.md. Scenario 4 needs root (network
# namespaces); without it, it is skipped with the reason in the report. The Redis peer (scenarios 6, 7, 10)
# needs redis-server, installed with apt-get when missing (root). See docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
echo "building: mvn -DskipTests package -pl perf/runner -am"
if ! mvn -q -B -DskipTests package -pl perf/runner -am >"$log" 2>&1; then
  cat "$log"
  exit 1
fi
cp="perf/runner/target/classes:$(cat perf/runner/target/runner.classpath)"
exec java -Xms256m -Xmx2g -Djava.awt.headless=true -cp "$cp" io.sessionrep.perf.PerfRun "$@"
