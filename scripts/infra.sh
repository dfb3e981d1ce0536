#!/usr/bin/env bash
# Local infrastructure for flaglens, without Docker: Postgres (the machine's server) and a single-node
# KRaft Apache Kafka broker run from jars fetched from Maven Central.
#
#   scripts/infra.sh up              start what is missing, create the database and the topic (idempotent)
#   scripts/infra.sh down [--purge]  stop the broker this script started (--purge: also delete its data)
#   scripts/infra.sh status          say whether Postgres and Kafka answer
#   scripts/infra.sh kafka-up | kafka-down [--purge]   the same for the broker alone (Postgres untouched)
#   scripts/infra.sh version         print the Kafka release `up` starts (KAFKA_VERSION or the default)
#   scripts/infra.sh fetch [V...]    fetch the jars of releases V (default: KAFKA_VERSION) into .cache/kafka, start nothing
#
# Environment:
#   DATABASE_URL      default postgres://postgres@127.0.0.1:5432/flaglens (database created if missing;
#                     a local server that does not answer is started with pg_ctlcluster; never stopped)
#   KAFKA_PORT        default 9092, KAFKA_CONTROLLER_PORT default 9093: the managed broker's listeners
#   KAFKA_RUN_DIR     default .run/kafka: the managed broker's state (another port and folder make another,
#                     separate broker: the chaos run starts its own this way)
#   KAFKA_BROKERS     default 127.0.0.1:$KAFKA_PORT (localhost:$KAFKA_PORT is the same). Any other value: use
#                     that broker (topic still ensured), start none.
#   KAFKA_AUTO_CREATE_TOPICS  default false (auto.create.topics.enable); true only for a test broker that
#                     shows no client of ours ever asks for a topic to be created
#   KAFKA_VERSION     default 4.4.0; 3.9.x works too (jars cached in .cache/kafka/libs-<version>; the logging
#                     follows the major: log4j2 for 4.x, reload4j for 3.x, see infra/kafka/pom.xml)
#   KAFKA_TOPIC       default flaglens.events (created with retention.ms=-1: the topic is the log of record)
#   KAFKA_PARTITIONS  default 6
#   KAFKA_HEAP_OPTS   default "-Xms256m -Xmx768m"
#   KAFKA_START_TIMEOUT  seconds to wait for the broker to answer, default 120 (about 16 s on an idle 2-core
#                     machine; a loaded one took over 60 s to restart the chaos run's broker)
#   KAFKA_EXTRA_LISTENER  a second listener besides PLAINTEXT, e.g. SASL_SSL://127.0.0.1:9094 (a test of
#                     secured clients: libs/kafka/src/kafka-security.int-spec.ts); its settings go in:
#   KAFKA_EXTRA_PROPERTIES  a file appended to server.properties
#   KAFKA_FORMAT_ARGS  extra arguments of the storage format (e.g. --add-scram 'SCRAM-SHA-256=[name=u,password=p]')
#
# All state lives under .run/ (git-ignored): .run/kafka/{server.properties,kraft-logs/,kafka.pid,kafka.log}
# (or $KAFKA_RUN_DIR), and the lock .run/kafka.lock (or $KAFKA_RUN_DIR.lock).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

KAFKA_HOST=127.0.0.1
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
DEFAULT_DATABASE_URL="postgres://postgres@127.0.0.1:5432/flaglens"
DEFAULT_KAFKA_BROKERS="$KAFKA_HOST:$KAFKA_PORT"
DATABASE_URL="${DATABASE_URL:-$DEFAULT_DATABASE_URL}"
KAFKA_BROKERS="${KAFKA_BROKERS:-$DEFAULT_KAFKA_BROKERS}"
KAFKA_VERSION="${KAFKA_VERSION:-4.4.0}"
KAFKA_TOPIC="${KAFKA_TOPIC:-flaglens.events}"
KAFKA_PARTITIONS="${KAFKA_PARTITIONS:-6}"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m}"
KAFKA_START_TIMEOUT="${KAFKA_START_TIMEOUT:-120}"
KAFKA_AUTO_CREATE_TOPICS="${KAFKA_AUTO_CREATE_TOPICS:-false}"
KAFKA_EXTRA_LISTENER="${KAFKA_EXTRA_LISTENER:-}"
KAFKA_EXTRA_PROPERTIES="${KAFKA_EXTRA_PROPERTIES:-}"
KAFKA_FORMAT_ARGS="${KAFKA_FORMAT_ARGS:-}"
export DATABASE_URL KAFKA_BROKERS KAFKA_TOPIC KAFKA_PARTITIONS

RUN_DIR="$ROOT/.run"
KAFKA_RUN="${KAFKA_RUN_DIR:-$RUN_DIR/kafka}"
KAFKA_DATA="$KAFKA_RUN/kraft-logs"
KAFKA_PROPS="$KAFKA_RUN/server.properties"
KAFKA_PID_FILE="$KAFKA_RUN/kafka.pid"
KAFKA_LOG="$KAFKA_RUN/kafka.log"
KAFKA_LIBS="$ROOT/.cache/kafka/libs-$KAFKA_VERSION"
KAFKA_POM="$ROOT/infra/kafka/pom.xml"
KAFKA_MAJOR="${KAFKA_VERSION%%.*}"
# Kafka 4 logs through log4j2, 3.x through reload4j (log4j 1): each has its jars (a Maven profile) and its file.
if [[ "$KAFKA_MAJOR" =~ ^[0-9]+$ ]] && ((KAFKA_MAJOR >= 4)); then
  KAFKA_POM_PROFILE=kafka4
  KAFKA_LOG_CONFIG="-Dlog4j2.configurationFile=file:$ROOT/infra/kafka/log4j2.properties"
else
  KAFKA_POM_PROFILE=kafka3
  KAFKA_LOG_CONFIG="-Dlog4j.configuration=file:$ROOT/infra/kafka/log4j.properties"
fi
MAX_MESSAGE_BYTES=4194304

log() { printf '[infra] %s\n' "$*"; }
warn() { printf '[infra] WARNING: %s\n' "$*" >&2; }
die() {
  printf '[infra] ERROR: %s\n' "$*" >&2
  exit 1
}

# ---------------------------------------------------------------------------------------------- helpers

# True if something accepts TCP connections on host:port (no Kafka protocol involved).
port_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null
}

ts_node() {
  local bin="$ROOT/node_modules/.bin/ts-node"
  [[ -x "$bin" ]] || die "node_modules is missing: run 'npm ci' first"
  "$bin" -r tsconfig-paths/register --transpile-only "$@"
}

# Runs scripts/ensure-topic.ts (kafkajs admin) with the given flags.
ensure_topic() {
  ts_node "$ROOT/scripts/ensure-topic.ts" "$@"
}

kafka_is_managed() {
  # The project starts a broker only for the default local address.
  [[ "$KAFKA_BROKERS" == "$KAFKA_HOST:$KAFKA_PORT" || "$KAFKA_BROKERS" == "localhost:$KAFKA_PORT" ]]
}

# Prints the PID from the PID file if that process is alive and is the Kafka broker of these properties
# (guards against PID reuse, and against stopping another folder's broker).
managed_kafka_pid() {
  [[ -f "$KAFKA_PID_FILE" ]] || return 1
  local pid
  pid="$(tr -dc '0-9' <"$KAFKA_PID_FILE")"
  [[ -n "$pid" ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  if [[ -r "/proc/$pid/cmdline" ]]; then
    local cmdline
    cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline")"
    [[ "$cmdline" == *kafka.Kafka* && "$cmdline" == *"$KAFKA_PROPS"* ]] || return 1
  fi
  printf '%s\n' "$pid"
}

show_log_tail() {
  if [[ -f "$KAFKA_LOG" ]]; then
    printf '[infra] last lines of %s:\n' "${KAFKA_LOG#"$ROOT"/}" >&2
    tail -n "${1:-40}" "$KAFKA_LOG" | sed 's/^/    /' >&2
    # The errors of the latest start, without the stack frames.
    local errors
    errors="$(awk '/^===== .* starting broker =====$/ { n = 0 } / (ERROR|FATAL) |^Caused by:/ { e[n++] = $0 }
                   END { for (i = (n > 6 ? n - 6 : 0); i < n; i++) print e[i] }' "$KAFKA_LOG" | cut -c1-300)"
    if [[ -n "$errors" ]]; then
      printf '[infra] errors reported by the broker:\n' >&2
      printf '%s\n' "$errors" | sed 's/^/    /' >&2
    fi
  fi
}

# Serialises concurrent `up`/`down` calls (e.g. two terminals).
take_lock() {
  mkdir -p "$(dirname "$KAFKA_RUN")"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$KAFKA_RUN.lock"
    flock -w 120 9 || die "another scripts/infra.sh is running (lock $KAFKA_RUN.lock)"
  fi
}

# ---------------------------------------------------------------------------------------------- postgres

# Sets PG_HOST PG_PORT PG_USER PG_PASSWORD PG_DB from DATABASE_URL (parsed with Node's URL parser).
parse_database_url() {
  local parsed
  parsed="$(node -e '
    let u;
    try { u = new URL(process.argv[1]); } catch (e) { console.error("not a URL"); process.exit(2); }
    if (!/^postgres(ql)?:$/.test(u.protocol)) { console.error("scheme must be postgres:// or postgresql://"); process.exit(2); }
    const clean = (s) => s.replace(/[\r\n]/g, "");
    const db = decodeURIComponent(u.pathname.replace(/^\//, ""));
    const host = u.hostname.replace(/^\[(.*)\]$/, "$1");
    console.log([host || "127.0.0.1", u.port || "5432", decodeURIComponent(u.username) || "postgres",
                 decodeURIComponent(u.password), db, "end"].map(clean).join("\n"));
  ' "$DATABASE_URL")" || die "cannot parse DATABASE_URL (expected postgres://user[:password]@host[:port]/db)"
  local sentinel=""
  {
    IFS= read -r PG_HOST || true
    IFS= read -r PG_PORT || true
    IFS= read -r PG_USER || true
    IFS= read -r PG_PASSWORD || true
    IFS= read -r PG_DB || true
    IFS= read -r sentinel || true
  } <<<"$parsed"
  [[ "$sentinel" == "end" ]] || die "cannot parse DATABASE_URL"
  [[ -n "$PG_DB" ]] || die "DATABASE_URL names no database: $DATABASE_URL"
}

pg_is_local() {
  [[ "$PG_HOST" == "127.0.0.1" || "$PG_HOST" == "localhost" || "$PG_HOST" == "::1" ]]
}

pg_answers() {
  pg_isready -q -h "$PG_HOST" -p "$PG_PORT" -t 3 >/dev/null 2>&1
}

psql_admin() {
  PGPASSWORD="$PG_PASSWORD" psql -X -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d postgres "$@"
}

postgres_up() {
  command -v pg_isready >/dev/null 2>&1 && command -v psql >/dev/null 2>&1 ||
    die "pg_isready/psql not found: install the PostgreSQL client (e.g. apt-get install postgresql-client)"
  parse_database_url
  if pg_answers; then
    log "postgres answers at $PG_HOST:$PG_PORT"
  elif pg_is_local; then
    command -v pg_ctlcluster >/dev/null 2>&1 && [[ -d /etc/postgresql ]] ||
      die "postgres does not answer at $PG_HOST:$PG_PORT and pg_ctlcluster is not available: start PostgreSQL or set DATABASE_URL"
    local version
    version="$(ls /etc/postgresql | head -1)"
    [[ -n "$version" ]] || die "no cluster under /etc/postgresql: start PostgreSQL or set DATABASE_URL"
    log "postgres does not answer at $PG_HOST:$PG_PORT; starting cluster $version/main"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start ||
      die "pg_ctlcluster $version main start failed"
    local i
    for ((i = 0; i < 30; i++)); do
      pg_answers && break
      sleep 1
    done
    pg_answers || die "postgres still does not answer at $PG_HOST:$PG_PORT after 30 s"
    log "postgres started"
  else
    die "postgres does not answer at $PG_HOST:$PG_PORT (not local: not starting it)"
  fi

  local exists
  exists="$(psql_admin -tA -v db="$PG_DB" <<<"SELECT 1 FROM pg_database WHERE datname = :'db';")" ||
    die "cannot query $PG_HOST:$PG_PORT as $PG_USER"
  if [[ "$exists" == "1" ]]; then
    log "database $PG_DB exists"
  else
    psql_admin -v db="$PG_DB" <<<'CREATE DATABASE :"db";' || die "cannot create database $PG_DB"
    log "database $PG_DB created"
  fi
}

postgres_status() {
  parse_database_url
  if pg_answers; then
    local exists
    exists="$(psql_admin -tA -v db="$PG_DB" <<<"SELECT 1 FROM pg_database WHERE datname = :'db';" 2>/dev/null || true)"
    if [[ "$exists" == "1" ]]; then
      log "postgres: answers at $PG_HOST:$PG_PORT, database $PG_DB exists"
    else
      log "postgres: answers at $PG_HOST:$PG_PORT, database $PG_DB MISSING (run: npm run infra:up)"
      return 1
    fi
  else
    log "postgres: does NOT answer at $PG_HOST:$PG_PORT"
    return 1
  fi
}

# ---------------------------------------------------------------------------------------------- kafka

check_java() {
  command -v java >/dev/null 2>&1 || die "java not found. Install Java 17+ and Maven \
(e.g. apt-get install openjdk-17-jre-headless maven), or point KAFKA_BROKERS at an existing broker."
  local major
  major="$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\)\.*.*/\1/p' | head -1)"
  if [[ -n "$major" && "$major" -lt 17 ]]; then
    die "java $major found; Java 17+ is needed (e.g. apt-get install openjdk-17-jre-headless), \
or point KAFKA_BROKERS at an existing broker."
  fi
}

fetch_kafka_jars() {
  if [[ -f "$KAFKA_LIBS/kafka_2.13-$KAFKA_VERSION.jar" ]]; then
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || die "mvn not found and the Kafka jars are not cached. Install Java 17+ \
and Maven (e.g. apt-get install openjdk-17-jre-headless maven), or point KAFKA_BROKERS at an existing broker."
  log "fetching Apache Kafka $KAFKA_VERSION jars from Maven Central into ${KAFKA_LIBS#"$ROOT"/} ..."
  local tmp="$KAFKA_LIBS.tmp.$$"
  rm -rf "$tmp"
  # Download into a temporary folder and rename, so an interrupted download is never taken as complete.
  # (Maven 3.8 prints stray colour codes even in batch mode: its output is shown only on failure.)
  local mvn_log="$KAFKA_LIBS.mvn.$$.log"
  mkdir -p "$(dirname "$KAFKA_LIBS")"
  if ! mvn -q -B -Dstyle.color=never -f "$KAFKA_POM" -P "$KAFKA_POM_PROFILE" -Dkafka.version="$KAFKA_VERSION" \
    dependency:copy-dependencies -DoutputDirectory="$tmp" >"$mvn_log" 2>&1; then
    sed 's/\x1b\[[0-9;]*m//g' "$mvn_log" | tail -n 40 | sed 's/^/    /' >&2
    rm -rf "$tmp" "$mvn_log"
    die "maven could not fetch org.apache.kafka:kafka_2.13:$KAFKA_VERSION (is Maven Central reachable?)"
  fi
  rm -f "$mvn_log"
  [[ -f "$tmp/kafka_2.13-$KAFKA_VERSION.jar" ]] || {
    rm -rf "$tmp"
    die "maven finished but kafka_2.13-$KAFKA_VERSION.jar is missing"
  }
  rm -rf "$KAFKA_LIBS"
  mv "$tmp" "$KAFKA_LIBS"
  log "jars cached ($(ls "$KAFKA_LIBS" | wc -l) files)"
}

write_server_properties() {
  mkdir -p "$KAFKA_DATA"
  local listeners="PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT" protocols="PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
  if [[ -n "$KAFKA_EXTRA_LISTENER" ]]; then
    [[ "$KAFKA_EXTRA_LISTENER" =~ ^(SSL|SASL_SSL|SASL_PLAINTEXT)://[A-Za-z0-9.-]+:[0-9]+$ ]] ||
      die "KAFKA_EXTRA_LISTENER must look like SASL_SSL://127.0.0.1:9094, got '$KAFKA_EXTRA_LISTENER'"
    listeners="$listeners,$KAFKA_EXTRA_LISTENER"
    protocols="$protocols,${KAFKA_EXTRA_LISTENER%%:*}:${KAFKA_EXTRA_LISTENER%%:*}"
  fi
  cat >"$KAFKA_PROPS" <<EOF
# Generated by scripts/infra.sh on every start: edit the script, not this file.
# Single-node KRaft broker for development and tests (Apache Kafka $KAFKA_VERSION).
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
listeners=$listeners,CONTROLLER://$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=$listeners
controller.listener.names=CONTROLLER
listener.security.protocol.map=$protocols
inter.broker.listener.name=PLAINTEXT
log.dirs=$KAFKA_DATA

# Topics: created explicitly (scripts/ensure-topic.ts); retention is set per topic, not here.
num.partitions=6
auto.create.topics.enable=$KAFKA_AUTO_CREATE_TOPICS
default.replication.factor=1
min.insync.replicas=1

# Internal topics on one node.
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1

# Tests join consumer groups often: no initial rebalance delay.
group.initial.rebalance.delay.ms=0

# Messages up to 4 MiB (tests send a 2 MB poison value that must reach the consumer).
message.max.bytes=$MAX_MESSAGE_BYTES
replica.fetch.max.bytes=$MAX_MESSAGE_BYTES
replica.fetch.response.max.bytes=$((MAX_MESSAGE_BYTES * 3))

# Small machine.
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
EOF
  if [[ -n "$KAFKA_EXTRA_PROPERTIES" ]]; then
    [[ -r "$KAFKA_EXTRA_PROPERTIES" ]] || die "KAFKA_EXTRA_PROPERTIES: cannot read $KAFKA_EXTRA_PROPERTIES"
    printf '\n# From KAFKA_EXTRA_PROPERTIES (%s)\n' "$KAFKA_EXTRA_PROPERTIES" >>"$KAFKA_PROPS"
    cat "$KAFKA_EXTRA_PROPERTIES" >>"$KAFKA_PROPS"
  fi
}

format_storage_if_needed() {
  if [[ -f "$KAFKA_DATA/meta.properties" ]]; then
    return 0
  fi
  local cp="$KAFKA_LIBS/*" cluster_id
  cluster_id="$(java "$KAFKA_LOG_CONFIG" -cp "$cp" kafka.tools.StorageTool random-uuid 2>>"$KAFKA_LOG" |
    tail -1 | tr -d '[:space:]')"
  [[ -n "$cluster_id" ]] || {
    show_log_tail 20
    die "kafka.tools.StorageTool random-uuid printed nothing"
  }
  local -a format_args=()
  # words without globbing (a SCRAM credential has brackets)
  [[ -z "$KAFKA_FORMAT_ARGS" ]] || read -ra format_args <<<"$KAFKA_FORMAT_ARGS"
  log "formatting KRaft storage ${KAFKA_DATA#"$ROOT"/} (cluster id $cluster_id)"
  java "$KAFKA_LOG_CONFIG" -cp "$cp" kafka.tools.StorageTool \
    format -t "$cluster_id" -c "$KAFKA_PROPS" "${format_args[@]}" >>"$KAFKA_LOG" 2>&1 || {
    show_log_tail 20
    die "kafka.tools.StorageTool format failed"
  }
}

rotate_log() {
  # Keep the broker log from growing without bound across many runs (one previous generation kept).
  if [[ -f "$KAFKA_LOG" ]] && (($(stat -c %s "$KAFKA_LOG") > 50 * 1024 * 1024)); then
    mv -f "$KAFKA_LOG" "$KAFKA_LOG.1"
  fi
}

check_kafka_version() {
  [[ "$KAFKA_VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "KAFKA_VERSION must look like 4.4.0, got '$KAFKA_VERSION'"
  # 3.9 and 4.x are tested (KRaft only); older releases need ZooKeeper or other settings
  [[ "$KAFKA_VERSION" =~ ^(3\.9|4)\. ]] || die "KAFKA_VERSION $KAFKA_VERSION is not supported (3.9.x or 4.x)"
}

start_broker() {
  check_kafka_version
  check_java
  fetch_kafka_jars
  mkdir -p "$KAFKA_RUN"
  rotate_log
  write_server_properties
  format_storage_if_needed

  log "starting Kafka $KAFKA_VERSION broker on $KAFKA_HOST:$KAFKA_PORT (log: ${KAFKA_LOG#"$ROOT"/})"
  printf '\n===== %s scripts/infra.sh up: starting broker =====\n' "$(date -u +%FT%TZ)" >>"$KAFKA_LOG"
  # shellcheck disable=SC2086 # KAFKA_HEAP_OPTS holds several JVM flags
  nohup java $KAFKA_HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    "$KAFKA_LOG_CONFIG" -Dkafka.logs.dir="$KAFKA_RUN" \
    -cp "$KAFKA_LIBS/*" kafka.Kafka "$KAFKA_PROPS" </dev/null >>"$KAFKA_LOG" 2>&1 9>&- &
  local pid=$!
  # (fd 9, the lock, is closed for the broker above so the lock ends with this script.)
  echo "$pid" >"$KAFKA_PID_FILE"
  log "broker pid $pid"
}

# Waits until the managed broker's port is open (failing fast if the JVM dies), then until it answers
# Kafka requests, and makes sure the topic exists (scripts/ensure-topic.ts does both).
wait_and_ensure_topic() {
  local pid="$1" start=$SECONDS
  while ! port_open "$KAFKA_HOST" "$KAFKA_PORT"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$KAFKA_PID_FILE"
      show_log_tail 40
      die "the Kafka broker exited during start-up (see ${KAFKA_LOG#"$ROOT"/})"
    fi
    if ((SECONDS - start >= KAFKA_START_TIMEOUT)); then
      show_log_tail 40
      die "the Kafka broker did not open $KAFKA_HOST:$KAFKA_PORT within ${KAFKA_START_TIMEOUT} s (pid $pid still running; 'npm run infra:down' stops it)"
    fi
    sleep 0.5
  done
  local remaining=$((KAFKA_START_TIMEOUT - (SECONDS - start)))
  ((remaining < 5)) && remaining=5
  if ! ensure_topic --wait "$remaining"; then
    show_log_tail 40
    die "the Kafka broker does not answer or the topic could not be created"
  fi
}

kafka_up() {
  if ! kafka_is_managed; then
    log "KAFKA_BROKERS=$KAFKA_BROKERS: using that broker, not starting one"
    ensure_topic --wait "$KAFKA_START_TIMEOUT" || die "the broker at $KAFKA_BROKERS does not answer"
    return 0
  fi

  local pid
  if pid="$(managed_kafka_pid)"; then
    log "Kafka broker already running (pid $pid)"
    wait_and_ensure_topic "$pid"
    return 0
  fi
  if [[ -f "$KAFKA_PID_FILE" ]]; then
    log "removing stale PID file (process $(cat "$KAFKA_PID_FILE") is gone)"
    rm -f "$KAFKA_PID_FILE"
  fi
  if port_open "$KAFKA_HOST" "$KAFKA_PORT"; then
    # Something this script did not start (or whose PID file was deleted) serves the port: use it if it
    # speaks Kafka, never kill it.
    warn "$KAFKA_HOST:$KAFKA_PORT is already served by a process this script did not start; using it"
    ensure_topic --wait 10 || die "$KAFKA_HOST:$KAFKA_PORT is taken but does not answer as a Kafka broker"
    return 0
  fi
  if port_open "$KAFKA_HOST" "$KAFKA_CONTROLLER_PORT"; then
    die "$KAFKA_HOST:$KAFKA_CONTROLLER_PORT (the broker's controller listener) is in use by another process"
  fi
  start_broker
  wait_and_ensure_topic "$(cat "$KAFKA_PID_FILE")"
  log "Kafka broker ready"
}

kafka_down() {
  local purge="$1" pid
  if pid="$(managed_kafka_pid)"; then
    log "stopping Kafka broker (pid $pid, SIGTERM)"
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 60; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    if kill -0 "$pid" 2>/dev/null; then
      warn "broker still running after 30 s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 1
    fi
    log "Kafka broker stopped"
  else
    if [[ -f "$KAFKA_PID_FILE" ]]; then
      log "Kafka broker not running (stale PID file removed)"
    else
      log "Kafka broker not running (nothing to stop)"
    fi
    if kafka_is_managed && port_open "$KAFKA_HOST" "$KAFKA_PORT"; then
      warn "$KAFKA_HOST:$KAFKA_PORT is served by a process this script did not start; leaving it alone"
    fi
  fi
  rm -f "$KAFKA_PID_FILE"
  if [[ "$purge" == "1" ]]; then
    rm -rf "$KAFKA_RUN"
    log "purged ${KAFKA_RUN#"$ROOT"/} (broker data and log)"
  fi
}

kafka_status() {
  local pid state=""
  if pid="$(managed_kafka_pid)"; then
    state=" (managed broker pid $pid)"
  elif ! kafka_is_managed; then
    state=" (external broker)"
  fi
  if ensure_topic --check >/dev/null 2>&1; then
    log "kafka: answers at $KAFKA_BROKERS$state"
  else
    log "kafka: does NOT answer at $KAFKA_BROKERS$state"
    return 1
  fi
}

# ---------------------------------------------------------------------------------------------- commands

usage() {
  cat <<EOF
usage: scripts/infra.sh up | down [--purge] | status | kafka-up | kafka-down [--purge] | version
  up          start Postgres (if local and stopped) and a Kafka broker; create the database and the topic
  down        stop the Kafka broker started by 'up' (Postgres is left running); --purge also deletes its data
  status      say whether Postgres and Kafka answer (exit 1 if one does not)
  kafka-up    start the Kafka broker (if missing) and create the topic; Postgres untouched
  kafka-down  stop that broker (--purge: also delete its data)
  version     print the Kafka release 'up' starts (KAFKA_VERSION, default 4.4.0)
  fetch [V...]  fetch the jars of releases V (default: KAFKA_VERSION) into .cache/kafka; start nothing
  KAFKA_PORT, KAFKA_CONTROLLER_PORT and KAFKA_RUN_DIR pick another, separate broker (see the header)
EOF
}

cmd_up() {
  local start=$SECONDS
  take_lock
  postgres_up
  kafka_up
  log "up in $((SECONDS - start)) s: DATABASE_URL=$DATABASE_URL KAFKA_BROKERS=$KAFKA_BROKERS KAFKA_TOPIC=$KAFKA_TOPIC"
}

cmd_kafka_up() {
  local start=$SECONDS
  take_lock
  kafka_up
  log "kafka up in $((SECONDS - start)) s: KAFKA_BROKERS=$KAFKA_BROKERS KAFKA_TOPIC=$KAFKA_TOPIC"
}

parse_purge() {
  case "${1:-}" in
    "") echo 0 ;;
    --purge) echo 1 ;;
    *)
      usage >&2
      exit 2
      ;;
  esac
}

cmd_kafka_down() {
  local purge
  purge="$(parse_purge "${1:-}")" || exit 2
  take_lock
  kafka_down "$purge"
}

cmd_down() {
  local purge=0
  case "${1:-}" in
    "") ;;
    --purge) purge=1 ;;
    *)
      usage >&2
      exit 2
      ;;
  esac
  take_lock
  kafka_down "$purge"
  log "postgres left running (it is the machine's server)"
}

# Each release in a run of its own (its jars, Maven profile and log settings follow KAFKA_VERSION), one after
# another: Maven's local repository is not safe for two downloads at once.
cmd_fetch() {
  local version
  if (($# == 0)); then
    check_java
    fetch_kafka_jars
    return
  fi
  for version in "$@"; do
    [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "fetch takes Kafka releases such as 4.4.0, not '$version'"
    KAFKA_VERSION="$version" bash "${BASH_SOURCE[0]}" fetch
  done
}

cmd_status() {
  local rc=0
  postgres_status || rc=1
  kafka_status || rc=1
  return "$rc"
}

main() {
  local cmd="${1:-}"
  shift || true
  case "$cmd" in
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    status) cmd_status "$@" ;;
    kafka-up) cmd_kafka_up "$@" ;;
    kafka-down) cmd_kafka_down "$@" ;;
    version) echo "$KAFKA_VERSION" ;;
    fetch) cmd_fetch "$@" ;;
    -h | --help | help) usage ;;
    *)
      usage >&2
      exit 2
      ;;
  esac
}

main "$@"
