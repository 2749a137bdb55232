#!/bin/bash
# Smoke test of a built image: runs `migrate`, the six services and the gateway from IMAGE with buildah (chroot
# isolation, host network: works inside an unprivileged CI container) against DATABASE_URL and NATS_URL, waits for the
# gateway's /health (dependency readiness) and asks one API question that needs the gateway → identity path.
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/smoke NATS_URL=nats://127.0.0.1:4222 \
#     deploy/container/smoke.sh localhost/vestibule:0.1.0
# Ports 18102 (gateway) and 18110-18115 (services) on loopback; the database must exist and may be empty. Every
# process is stopped on exit; their logs are in $LOGS (default a temporary directory, printed).
set -euo pipefail

image="${1:?usage: smoke.sh <image>}"
: "${DATABASE_URL:?set DATABASE_URL}" "${NATS_URL:?set NATS_URL}"
logs="${LOGS:-$(mktemp -d)}"
base=18110
env_args=(--env "DATABASE_URL=$DATABASE_URL" --env "NATS_URL=$NATS_URL" --env VESTIBULE_EVENT_PREFIX=smoke
  --env "VESTIBULE_MASTER_KEYS=k1:$(head -c 32 /dev/urandom | base64)"
  --env "VESTIBULE_SERVICE_SECRET=$(head -c 48 /dev/urandom | base64 | tr -d '=+/')"
  --env VESTIBULE_PUBLIC_URL=http://127.0.0.1:18102)
kinds=(auth identity teams-permissions billing email vault)
for i in "${!kinds[@]}"; do
  name="$(echo "${kinds[$i]}" | tr 'a-z-' 'A-Z_')"
  env_args+=(--env "VESTIBULE_${name}_URL=http://127.0.0.1:$((base + i))")
done

containers=()
cleanup() {
  # SIGTERM to the processes (they drain and exit), then the containers: removing a container first would kill its
  # `buildah run` and orphan the process.
  pkill -TERM -f "node /app/dist/" 2>/dev/null || true
  for _ in $(seq 1 30); do pgrep -f "node /app/dist/" >/dev/null || break; sleep 0.5; done
  for c in "${containers[@]}"; do buildah rm "$c" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT

run() { # <kind> <port> [--wait]
  local c
  c="$(buildah from "$image")"
  containers+=("$c")
  if [ "${3:-}" = --wait ]; then
    buildah run --isolation chroot --network host "${env_args[@]}" --env "PORT=$2" "$c" -- /usr/bin/tini -s -- /app/entrypoint.sh "$1" >"$logs/$1.log" 2>&1
  else
    buildah run --isolation chroot --network host "${env_args[@]}" --env "PORT=$2" "$c" -- /usr/bin/tini -s -- /app/entrypoint.sh "$1" >"$logs/$1.log" 2>&1 &
  fi
}

echo "logs in $logs"
run migrate 0 --wait && echo "migrate: ok"
for i in "${!kinds[@]}"; do run "${kinds[$i]}" $((base + i)); done
run gateway 18102
for s in $(seq 1 90); do
  if curl -sf http://127.0.0.1:18102/health >/dev/null; then echo "gateway /health: 200 after ${s} s"; break; fi
  [ "$s" = 90 ] && { echo "gateway /health: not ready after 90 s" >&2; exit 1; }
  sleep 1
done
answer="$(curl -s -H 'x-stack-project-id: internal' -H 'x-stack-access-type: client' http://127.0.0.1:18102/api/v1/projects/current)"
echo "GET /projects/current without a key: $answer"
grep -q '"code":"CLIENT_AUTHENTICATION_REQUIRED"' <<<"$answer"
echo "smoke test passed"
