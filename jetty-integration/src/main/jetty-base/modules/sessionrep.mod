# sessionrep: replicated HTTP sessions over JGroups (docs/install-jetty.md)

[description]
Replicates the HTTP sessions of the web application deployed in this Jetty base to other Jetty nodes
(sessionrep over JGroups): a session survives the loss of the node that served it.

[tags]
session

[provides]
session-store
session-cache

[depends]
sessions

[lib]
lib/sessionrep/*.jar

[xml]
etc/sessionrep.xml

[ini-template]
## sessionrep options, one module property per option: sessionrep.<option>=<value>, with the canonical
## option names. A commented or blank value means the default. Per node, set at least node-name (unique),
## machine-id (on one host), bind-port and peers (static discovery).

## node-name: Unique per node; also the route suffix of session ids (Jetty's session id manager workerName is set to it). Default: Jetty's workerName (jetty.sessionIdManager.workerName, node0 unless set): SET IT ON EVERY NODE.
# sessionrep.node-name=node-a

## replication-mode: async | sync (the request waits for the first backup's acknowledgement, at most sync-timeout). Default async.
# sessionrep.replication-mode=async

## sync-timeout: Duration (500ms, 2s, PT0.5S). Default 500ms.
# sessionrep.sync-timeout=500ms

## data-lane: true | false (updates go to backups over a TCP connection of their own beside the channel: sync, the request's update to the first backup; async, the sender's batches; TLS with tls-keystore; not with jgroups-config). Default true.
# sessionrep.data-lane=true

## data-lane-port: 0..65535 (the data lane's port on bind-address; open it between nodes like bind-port). Default 0 (auto: a free port).
# sessionrep.data-lane-port=0

## async-lane: true | false (async mode: the sender's batches take the data lane too, written without waiting for the backup's answer; false: the JGroups channel). Default true.
# sessionrep.async-lane=true

## ownership-timeout: Duration (5s, 500ms, PT5S). How long a request waits for another live node to hand the session over; then 503. Default 5s.
# sessionrep.ownership-timeout=5s

## ignored-paths: static-files, none, or a Java regular expression. Embedded Jetty only: requests whose path inside the context matches it get no session and neither move nor replicate it; this module accepts it but cannot apply it (it installs no handler in the application's context). Default static-files (.*\.(css|js|mjs|map|png|gif|jpe?g|svg|ico|webp|avif|woff2?|ttf|otf|eot)); none: every request takes part.
# sessionrep.ignored-paths=static-files

## replication-trigger: on-request-end | on-attribute-modify | on-shutdown. Default on-request-end; on-attribute-modify replicates each change before it returns; on-shutdown only hands sessions over on orderly stop.
# sessionrep.replication-trigger=on-request-end

## write-quota: Backup copies per session, 0..64; 0 = no replication. Default 1.
# sessionrep.write-quota=1

## allow-colocation: true | false: may a backup live on the same machine (machine-id) as the primary. Default true.
# sessionrep.allow-colocation=true

## machine-id: What "same machine" means. Default: host name.
# sessionrep.machine-id=host-1

## discovery: multicast | static | dynamic. Default static.
# sessionrep.discovery=static

## cluster-name: Nodes with different names never see each other. Default sessions.
# sessionrep.cluster-name=sessions

## bind-address: Where this node listens for replication traffic. Default 127.0.0.1.
# sessionrep.bind-address=10.0.0.1

## bind-port: 1..65535, or 0 = first free port from 7800. Default 0 (auto: first free from 7800).
# sessionrep.bind-port=7800

## peers: static discovery: host:port list (comma or space separated); a ring is enough. Default empty.
# sessionrep.peers=10.0.0.2:7800

## multicast-address: multicast / dynamic discovery. Default 228.8.8.8.
# sessionrep.multicast-address=228.8.8.8

## multicast-port: Default 45588.
# sessionrep.multicast-port=45588

## dynamic-discovery: with discovery=dynamic: multicast, file or dns. Default multicast.
# sessionrep.dynamic-discovery=multicast

## discovery-directory: with dynamic-discovery=file: a directory every node can read and write.
# sessionrep.discovery-directory=

## dns-query: with dynamic-discovery=dns: the DNS name(s) to look up (e.g. a Kubernetes headless service).
# sessionrep.dns-query=

## dns-record-type: with dynamic-discovery=dns: A or SRV. Default A.
# sessionrep.dns-record-type=A

## jgroups-config: experts: a JGroups XML stack that replaces the generated one.
# sessionrep.jgroups-config=

## max-session-size: Larger sessions are not replicated (warned once per session). Default 1MiB.
# sessionrep.max-session-size=1MiB

## max-backup-bytes: Attribute bytes this node holds at most as backups; then new copies are refused (counted, logged). Default: half the JVM's max heap.
# sessionrep.max-backup-bytes=256MiB

## cluster-key: Shared secret (at least 16 characters, or file:/path): encrypts and authenticates all traffic between nodes; nodes without it cannot join.
# sessionrep.cluster-key=

## tls-keystore: This node's key store (private key + certificate) for mutual TLS between nodes; needs tls-truststore.
# sessionrep.tls-keystore=/etc/sessionrep/node.p12

## tls-keystore-password: Password of tls-keystore, or file:/path.
# sessionrep.tls-keystore-password=

## tls-keystore-type: pkcs12 or jks. Default pkcs12.
# sessionrep.tls-keystore-type=pkcs12

## tls-truststore: Certificates (or the CA) of the peers this node accepts.
# sessionrep.tls-truststore=/etc/sessionrep/trust.p12

## tls-truststore-password: Password of tls-truststore, or file:/path.
# sessionrep.tls-truststore-password=

## tls-truststore-type: pkcs12 or jks. Default pkcs12.
# sessionrep.tls-truststore-type=pkcs12

## insecure-cluster: true lets a node on a non-loopback bind-address start without cluster-key or TLS (anyone reaching the port can read and forge sessions). Default false.
# sessionrep.insecure-cluster=false

## serialization-allowlist: Application classes that may be deserialized: package prefixes ending in '.' or class names. Default empty.
# sessionrep.serialization-allowlist=com.example.shop.

## async-queue-entries: Bound of the async sender's queue, in updates. Default 10000.
# sessionrep.async-queue-entries=10000

## async-queue-bytes: Bound of the async sender's queue, in bytes. Default 64MiB.
# sessionrep.async-queue-bytes=64MiB

## async-batch-window: How long the async sender lets updates gather before it sends them together; 0 sends each at once. Default 1ms.
# sessionrep.async-batch-window=1ms

## metrics: jmx | none. jmx: the meters are MBeans of the platform MBeanServer, domain sessionrep (jconsole, the jmx module), removed when the application stops. Default jmx.
# sessionrep.metrics=jmx
