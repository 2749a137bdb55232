#!/bin/sh
# Entry point of the Vestibule image: the first argument is the process kind, the rest goes to that process.
#   auth | identity | teams-permissions | billing | email | vault   one service (gRPC over h2c, PORT)
#   gateway                                                          the public HTTP API (PORT, default 8102)
#   frontends                                                        dashboard + hosted pages (PORT, default 8101)
#   migrate [--service <name>]...                                    apply every schema's migrations, then exit
# tini is PID 1 (see the Dockerfile) and forwards SIGTERM to node, which drains and exits.
# VESTIBULE_HOME (default /app) holds dist/ and node_modules/; NODE (default node) is the runtime.
set -eu

home="${VESTIBULE_HOME:-/app}"
node="${NODE:-node}"
kind="${1:-}"
[ "$#" -gt 0 ] && shift

usage() {
  echo "usage: <auth|identity|teams-permissions|billing|email|vault|gateway|frontends|migrate> [args...]" >&2
}

case "$kind" in
  auth | identity | teams-permissions | billing | email | vault)
    entry="services/$kind/src/main.js" ;;
  gateway)
    entry="gateway/src/main.js" ;;
  frontends)
    entry="deploy/src/frontends-main.js" ;;
  migrate)
    entry="deploy/src/migrate.js" ;;
  help | -h | --help)
    usage
    exit 0 ;;
  "")
    echo "vestibule: no process kind given" >&2
    usage
    exit 64 ;;
  *)
    echo "vestibule: unknown process kind \"$kind\"" >&2
    usage
    exit 64 ;;
esac

# Containers listen on every interface unless told otherwise (the processes default to loopback).
export HOST="${HOST:-0.0.0.0}"
cd "$home/dist"
exec "$node" "$home/dist/$entry" "$@"
