#!/usr/bin/env bash
# A classroom server in one command: N Streamlit processes behind Debian's nginx (sticky
# sessions, websockets, security headers), all sharing one database.
#
#   deploy/run.sh [N] [--port 8080] [--postgres]
#
#   N           app processes (default: the number of cores). One process uses about one core.
#   --port P    where nginx listens (default 8080; students open http://<this machine>:P/live)
#   --postgres  start a local PostgreSQL cluster under $MIZAN_DATA_DIR/pg and use it, unless
#               MIZAN_DATABASE_URL already points to a server. Without it: the SQLite file
#               $MIZAN_DATA_DIR/mizan.sqlite3 (WAL mode: fine for one machine's processes).
#
# Environment: MIZAN_DATA_DIR (default ./data), MIZAN_DATABASE_URL, MIZAN_APP_PORT (first app
# port, default 8601). Installs nginx (and postgresql with --postgres) with apt when missing.
# Runs in the foreground; Ctrl-C (or SIGTERM) stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

N=""
PORT=8080
POSTGRES=0
while [ $# -gt 0 ]; do
  case "$1" in
    --port) PORT="$2"; shift 2 ;;
    --postgres) POSTGRES=1; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) N="$1"; shift ;;
  esac
done
N=${N:-$(nproc)}
case "$N" in ''|*[!0-9]*) echo "N must be a number" >&2; exit 2 ;; esac
APP_PORT=${MIZAN_APP_PORT:-8601}
DATA=${MIZAN_DATA_DIR:-$ROOT/data}
RUN="$DATA/run"
mkdir -p "$RUN"
[ -f "$DATA/.gitignore" ] || echo '*' > "$DATA/.gitignore"
export MIZAN_DATA_DIR="$DATA"
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

need() {  # need <command> <debian package>
  command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || {
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$2"
  }
}
need nginx nginx
[ -x .venv/bin/streamlit ] || make .venv/.runtime

PIDS=()
PG_STOP=""
cleanup() {
  trap - EXIT INT TERM
  echo "stopping…"
  [ -f "$RUN/nginx.pid" ] && kill "$(cat "$RUN/nginx.pid")" 2>/dev/null || true
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -n "$PG_STOP" ] && eval "$PG_STOP" >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM

# --- the database ---------------------------------------------------------------------------
if [ "$POSTGRES" = 1 ] && [ -z "${MIZAN_DATABASE_URL:-}" ]; then
  need pg_ctlcluster postgresql
  PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  PGDATA="$DATA/pg"
  AS=()
  if [ "$(id -u)" = 0 ]; then  # PostgreSQL refuses to run as root
    AS=(runuser -u postgres --)
    mkdir -p "$PGDATA" && chown postgres:postgres "$PGDATA"
  fi
  PGPORT=${MIZAN_PG_PORT:-5439}
  if [ ! -f "$PGDATA/PG_VERSION" ]; then
    "${AS[@]}" "$PGBIN/initdb" -D "$PGDATA" -U mizan --auth=trust --encoding=UTF8 >/dev/null
  fi
  "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w \
    -o "-p $PGPORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=300" start
  PG_STOP="${AS[*]} $PGBIN/pg_ctl -D $PGDATA -m fast -w stop"
  export MIZAN_DATABASE_URL="postgresql://mizan@127.0.0.1:$PGPORT/postgres"
fi
# migrate once before the processes start (each would also do it, serialised, on first use)
.venv/bin/python -c "from live import db; db.engine(); print('database:', db.engine().url.render_as_string(hide_password=True))"

# --- the app processes ------------------------------------------------------------------------
UPSTREAMS=""
for i in $(seq 0 $((N - 1))); do
  port=$((APP_PORT + i))
  .venv/bin/streamlit run app.py \
    --server.port "$port" --server.address 127.0.0.1 --server.headless true \
    --server.fileWatcherType none --server.runOnSave false \
    --browser.gatherUsageStats false --global.developmentMode false \
    --runner.postScriptGC false --client.showErrorDetails none \
    >"$RUN/app-$port.log" 2>&1 &
  PIDS+=($!)
  UPSTREAMS+="        server 127.0.0.1:$port max_fails=0;"$'\n'
done
for i in $(seq 0 $((N - 1))); do
  port=$((APP_PORT + i))
  for _ in $(seq 1 300); do
    curl -fs "http://127.0.0.1:$port/_stcore/health" >/dev/null 2>&1 && break
    sleep 0.2
  done
  curl -fs "http://127.0.0.1:$port/_stcore/health" >/dev/null || {
    echo "app process on port $port did not start; see $RUN/app-$port.log" >&2; exit 1; }
done

# --- nginx ------------------------------------------------------------------------------------
USER_LINE=""
[ "$(id -u)" = 0 ] && USER_LINE="user www-data;"
mkdir -p "$RUN"/{client_body,proxy,fastcgi,uwsgi,scgi}
python3 - "$ROOT/deploy/nginx.conf.template" "$RUN/nginx.conf" <<PY
import sys
text = open(sys.argv[1]).read()
for key, value in {"@RUN@": "$RUN", "@USER@": "$USER_LINE", "@LISTEN@": "$PORT",
                   "@UPSTREAMS@": """$UPSTREAMS""".rstrip()}.items():
    text = text.replace(key, value)
open(sys.argv[2], "w").write(text)
PY
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
"$NGINX" -t -q -c "$RUN/nginx.conf" -p "$RUN"
"$NGINX" -c "$RUN/nginx.conf" -p "$RUN"

echo "Mizan classroom: $N app processes behind nginx on port $PORT"
echo "  instructor and students: http://$(hostname -I 2>/dev/null | awk '{print $1}'):$PORT/live"
echo "  logs: $RUN   (Ctrl-C stops everything)"
wait "${PIDS[@]}"
