#!/usr/bin/env bash
# End to end against a real Keycloak: proves 200/401/403 through Pigeon with tokens a real OIDC
# provider issued. Everything runs on 127.0.0.1 and is stopped at the end.
#
#   bash src/test/e2e/keycloak-e2e.sh
#
# It fetches org.keycloak:keycloak-quarkus-dist from Maven (once, into target/e2e), starts it with
# `kc.sh start-dev`, creates with kcadm.sh a realm, a public client, groups team-a/team-b (mapped to the
# token's "projects" claim), a realm role pigeon-operator and three users (alice: team-a, bob: team-b,
# carol: operator), starts Pigeon in OIDC mode on an embedded PostgreSQL, gets tokens by password grant
# and checks what each may do. Needs a JDK 21+ for Keycloak (KEYCLOAK_JAVA_HOME, default: the newest
# JDK under /usr/lib/jvm); Pigeon runs on the default JDK. However it ends (passed, failed, Ctrl-C), it stops every
# process it started and checks that ports 18080, 18090 and 18180 are free again.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
WORK="$ROOT/target/e2e"
KC_VERSION="${KC_VERSION:-26.7.3}"
KC_PORT=18180
PIGEON_PORT=18080
# Pigeon's gRPC port (the KEDA external scaler), away from its default 9010.
PIGEON_GRPC_PORT=18090
KC_URL="http://127.0.0.1:$KC_PORT"
PIGEON_URL="http://127.0.0.1:$PIGEON_PORT"
mkdir -p "$WORK"
start=$(date +%s)

KEYCLOAK_JAVA_HOME="${KEYCLOAK_JAVA_HOME:-$( (ls -d /usr/lib/jvm/*25* /usr/lib/jvm/*21* 2>/dev/null || true) | head -1)}"
[ -x "$KEYCLOAK_JAVA_HOME/bin/java" ] || { echo "Keycloak needs a JDK 21+: set KEYCLOAK_JAVA_HOME"; exit 2; }

# Keycloak and Pigeon each run as a tree of processes (kc.sh and its JVM; mvnw's JVM, the Pigeon JVM it forks and
# that JVM's embedded PostgreSQL), so each is started in a session of its own (setsid: its process group id is its
# pid) and stopped as a whole group. PostgreSQL's server leaves the group (pg_ctl starts it in a session of its own):
# the Pigeon JVM stops it as it shuts down, and if that JVM had to be killed, its postmaster.pid names it.
process_groups=()
start_group() { # command...: runs it in the background as the leader of a new session and process group (the
    # script runs without job control, so the background process is no group leader and setsid does not fork: $! is
    # the new group's id)
    setsid "$@" &
    process_groups+=($!)
}
alive_in_group() { # process group id: true while a process of the group (other than a zombie) runs
    ps -eo pgid=,stat= | awk -v group="$1" '$1 == group && $2 !~ /^Z/ { found = 1 } END { exit !found }'
}
stop_group() { # process group id: SIGTERM to every process of the group, SIGKILL after 30 s
    kill -TERM -- "-$1" 2>/dev/null || return 0
    for _ in $(seq 1 30); do
        alive_in_group "$1" || return 0
        sleep 1
    done
    echo "process group $1 did not stop within 30 s: killing it"
    kill -KILL -- "-$1" 2>/dev/null || true
}
stop_postgres() { # data directory: the server still running on it, stopped (fast shutdown)
    local pid
    pid=$(head -1 "$1/postmaster.pid" 2>/dev/null) || return 0
    grep -q postgres "/proc/$pid/cmdline" 2>/dev/null || return 0
    echo "stopping the embedded PostgreSQL (pid $pid) its Pigeon left running"
    kill -INT "$pid" 2>/dev/null || return 0
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || return 0; sleep 1; done
    kill -KILL "$pid" 2>/dev/null || true
}
listening() { # port: true while something listens on it
    ss -ltn | awk -v port=":$1" '$4 ~ port "$" { found = 1 } END { exit !found }'
}
cleanup() {
    local status=$?
    trap '' INT TERM
    for group in ${process_groups[@]+"${process_groups[@]}"}; do stop_group "$group"; done
    wait 2>/dev/null || true
    stop_postgres "$WORK/pgdata"
    for port in $PIGEON_PORT $PIGEON_GRPC_PORT $KC_PORT; do
        for _ in $(seq 1 10); do listening "$port" || break; sleep 1; done
        if listening "$port"; then echo "port $port is still in use after the run"; status=1; fi
    done
    exit "$status"
}
for port in $PIGEON_PORT $PIGEON_GRPC_PORT $KC_PORT; do
    if listening "$port"; then echo "port $port is in use (a run that did not stop?); free it first"; exit 2; fi
done
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

wait_for() { # url, seconds
    for _ in $(seq 1 "$2"); do
        curl -sf -o /dev/null "$1" && return 0
        sleep 1
    done
    echo "timed out waiting for $1"; return 1
}

if [ ! -x "$WORK/keycloak-$KC_VERSION/bin/kc.sh" ]; then
    echo "== fetching Keycloak $KC_VERSION from Maven"
    ./mvnw -q -B dependency:copy -Dartifact="org.keycloak:keycloak-quarkus-dist:$KC_VERSION:zip" \
        -DoutputDirectory="$WORK" -Dmdep.stripVersion=false
    (cd "$WORK" && unzip -q -o "keycloak-quarkus-dist-$KC_VERSION.zip")
fi
KC="$WORK/keycloak-$KC_VERSION"

echo "== starting Keycloak on $KC_URL"
rm -rf "$KC/data"
JAVA_HOME="$KEYCLOAK_JAVA_HOME" KC_BOOTSTRAP_ADMIN_USERNAME=admin KC_BOOTSTRAP_ADMIN_PASSWORD=admin \
    start_group "$KC/bin/kc.sh" start-dev --http-host=127.0.0.1 --http-port=$KC_PORT > "$WORK/keycloak.log" 2>&1
wait_for "$KC_URL/realms/master" 180

echo "== configuring realm pigeon with kcadm.sh"
kcadm() { JAVA_HOME="$KEYCLOAK_JAVA_HOME" "$KC/bin/kcadm.sh" "$@" --config "$WORK/kcadm.config"; }
kcadm config credentials --server "$KC_URL" --realm master --user admin --password admin >/dev/null
kcadm create realms -s realm=pigeon -s enabled=true >/dev/null
kcadm create clients -r pigeon -s clientId=pigeon-cli -s publicClient=true -s directAccessGrantsEnabled=true \
    -s 'redirectUris=["*"]' >/dev/null
client_id=$(kcadm get clients -r pigeon -q clientId=pigeon-cli --fields id --format csv --noquotes)
# Group membership as the token's "projects" claim (names only, an array).
kcadm create "clients/$client_id/protocol-mappers/models" -r pigeon -s name=projects -s protocol=openid-connect \
    -s protocolMapper=oidc-group-membership-mapper \
    -s 'config={"claim.name":"projects","full.path":"false","access.token.claim":"true","id.token.claim":"false","userinfo.token.claim":"false","multivalued":"true"}' >/dev/null
# Pigeon checks that an access token is meant for it: the client id as the token's audience.
kcadm create "clients/$client_id/protocol-mappers/models" -r pigeon -s name=audience -s protocol=openid-connect \
    -s protocolMapper=oidc-audience-mapper \
    -s 'config={"included.client.audience":"pigeon-cli","access.token.claim":"true","id.token.claim":"false"}' >/dev/null
kcadm create groups -r pigeon -s name=team-a >/dev/null
kcadm create groups -r pigeon -s name=team-b >/dev/null
kcadm create roles -r pigeon -s name=pigeon-operator >/dev/null
for user in alice bob carol; do
    kcadm create users -r pigeon -s username=$user -s enabled=true -s email=$user@example.com -s emailVerified=true \
        -s firstName=$user -s lastName=test >/dev/null
    kcadm set-password -r pigeon --username $user --new-password "secret-$user" >/dev/null
done
group_id() { kcadm get groups -r pigeon -q search="$1" --fields id --format csv --noquotes | head -1; }
user_id() { kcadm get users -r pigeon -q username="$1" --fields id --format csv --noquotes; }
kcadm update "users/$(user_id alice)/groups/$(group_id team-a)" -r pigeon -s realm=pigeon -s userId="$(user_id alice)" \
    -s groupId="$(group_id team-a)" -n >/dev/null
kcadm update "users/$(user_id bob)/groups/$(group_id team-b)" -r pigeon -s realm=pigeon -s userId="$(user_id bob)" \
    -s groupId="$(group_id team-b)" -n >/dev/null
kcadm add-roles -r pigeon --uusername carol --rolename pigeon-operator >/dev/null

echo "== starting Pigeon in OIDC mode on $PIGEON_URL"
PIGEON_AUTH_MODE=oidc PIGEON_CONSOLE_ENABLED=false QUARKUS_OIDC_TENANT_ENABLED=true QUARKUS_OIDC_AUTH_SERVER_URL="$KC_URL/realms/pigeon" \
    QUARKUS_OIDC_CLIENT_ID=pigeon-cli QUARKUS_HTTP_PORT=$PIGEON_PORT QUARKUS_GRPC_SERVER_PORT=$PIGEON_GRPC_PORT \
    start_group ./mvnw -q -B -Plocal -Dpigeon.local.data-dir="$WORK/pgdata" > "$WORK/pigeon.log" 2>&1
wait_for "$PIGEON_URL/q/health/ready" 300

token() {
    curl -sf "$KC_URL/realms/pigeon/protocol/openid-connect/token" -d grant_type=password -d client_id=pigeon-cli \
        -d username="$1" -d password="secret-$1" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])'
}
ALICE=$(token alice)
BOB=$(token bob)
CAROL=$(token carol)

failures=0
expect() { # expected status, description, curl arguments...
    local want=$1 what=$2; shift 2
    local got
    got=$(curl -s -o /dev/null -w '%{http_code}' -H 'Client-ID: 3381af92-2b9e-11e3-b191-71861300734c' "$@")
    if [ "$got" = "$want" ]; then echo "ok   $want $what"; else echo "FAIL $what: expected $want, got $got"; failures=$((failures + 1)); fi
}
expect 401 "no token" -X PUT "$PIGEON_URL/v2/queues/jobs" -H 'X-Project-Id: team-a'
expect 401 "forged token" -H 'Authorization: Bearer not.a.token' "$PIGEON_URL/v2/queues" -H 'X-Project-Id: team-a'
expect 201 "alice creates a queue in team-a" -X PUT "$PIGEON_URL/v2/queues/jobs" -H "Authorization: Bearer $ALICE" -H 'X-Project-Id: team-a'
expect 201 "alice posts (project from her only group)" -X POST "$PIGEON_URL/v2/queues/jobs/messages" \
    -H "Authorization: Bearer $ALICE" -H 'Content-Type: application/json' -d '{"messages": [{"ttl": 300, "body": "job"}]}'
expect 200 "alice lists team-a" "$PIGEON_URL/v2/queues" -H "Authorization: Bearer $ALICE" -H 'X-Project-Id: team-a'
expect 403 "alice on team-b" "$PIGEON_URL/v2/queues" -H "Authorization: Bearer $ALICE" -H 'X-Project-Id: team-b'
expect 403 "bob on team-a" "$PIGEON_URL/v2/queues/jobs/messages" -H "Authorization: Bearer $BOB" -H 'X-Project-Id: team-a'
expect 200 "bob on team-b sees nothing of team-a" "$PIGEON_URL/v2/queues/jobs/stats" -H "Authorization: Bearer $BOB" -H 'X-Project-Id: team-b'
expect 403 "alice reads the operator health" "$PIGEON_URL/v2/health" -H "Authorization: Bearer $ALICE" -H 'X-Project-Id: team-a'
expect 200 "carol (operator) on team-a" "$PIGEON_URL/v2/queues/jobs/stats" -H "Authorization: Bearer $CAROL" -H 'X-Project-Id: team-a'
expect 200 "carol reads the operator health" "$PIGEON_URL/v2/health" -H "Authorization: Bearer $CAROL" -H 'X-Project-Id: team-b'
expect 204 "probes stay open" "$PIGEON_URL/v1/health"

echo "took $(( $(date +%s) - start )) s"
if [ "$failures" -gt 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "Keycloak end-to-end: all checks passed"
