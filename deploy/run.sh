#!/usr/bin/env bash
# A classroom server in one command: N supervised Streamlit processes behind Debian's nginx
# (sticky sessions, websockets, per-address limits, health-aware routing, TLS, security
# headers), all sharing one database. deploy/README.md explains every part.
#
#   deploy/run.sh [N] [options]
#
#   N                 app processes (default: the number of cores). One process uses one core.
#   --port P          where nginx listens (default 8080, or 8443 with TLS)
#   --postgres        run a local PostgreSQL in $MIZAN_DATA_DIR/pg (password authentication,
#                     socket in a private folder) unless MIZAN_DATABASE_URL points to one.
#                     Without it and without MIZAN_DATABASE_URL: the SQLite file
#                     $MIZAN_DATA_DIR/mizan.sqlite3 (one machine only).
#   --tls-cert C --tls-key K   HTTPS with this certificate (Secure cookies, HSTS)
#   --self-signed     HTTPS with a certificate made once in $MIZAN_DATA_DIR/tls, for a closed
#                     network (browsers warn once; no HSTS, which would forbid the warning's
#                     "continue" button)
#   --redirect-port P with TLS: also listen for plain HTTP on P and redirect it to HTTPS
#   --bind ADDR       address of the app processes (default 127.0.0.1; on an app host of a
#                     several-host setup, its private address)
#   --app-only        only the app processes (an app host: MIZAN_DATABASE_URL must name the
#                     shared PostgreSQL)
#   --proxy-only      only nginx, in front of --upstreams (the proxy host)
#   --upstreams LIST  host:port,host:port,… for nginx (default: this script's app processes)
#   --pg-listen ADDRS with --postgres: addresses PostgreSQL listens on (default 127.0.0.1)
#   --pg-allow CIDRS  with --postgres: app hosts allowed in (password auth), e.g. 10.0.0.0/24
#
# Environment: MIZAN_DATA_DIR (default ./data), MIZAN_DATABASE_URL, MIZAN_APP_PORT (first app
# port, 8601), MIZAN_PG_PORT (5439), MIZAN_WATCHDOG_S (an app process that has neither answered
# its health check nor used CPU for this long is killed and restarted; default 30, 0 = off),
# MIZAN_RESTART_DELAY_S (1), MIZAN_MAX_UPLOAD_MB (200), the limits of live/limits.py and
# deploy/render_nginx.py, and the database timeouts of live/db.py.
# Installs nginx (and postgresql with --postgres) with apt when missing. Runs in the
# foreground; Ctrl-C (or SIGTERM) stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

N=""
PORT=""
POSTGRES=0
TLS_CERT=""
TLS_KEY=""
SELF_SIGNED=0
REDIRECT_PORT=""
BIND=127.0.0.1
APPS=1
PROXY=1
UPSTREAMS=""
PG_LISTEN=127.0.0.1
PG_ALLOW=""
while [ $# -gt 0 ]; do
  case "$1" in
    --port) PORT="$2"; shift 2 ;;
    --postgres) POSTGRES=1; shift ;;
    --tls-cert) TLS_CERT="$2"; shift 2 ;;
    --tls-key) TLS_KEY="$2"; shift 2 ;;
    --self-signed) SELF_SIGNED=1; shift ;;
    --redirect-port) REDIRECT_PORT="$2"; shift 2 ;;
    --bind) BIND="$2"; shift 2 ;;
    --app-only) PROXY=0; shift ;;
    --proxy-only) APPS=0; shift ;;
    --upstreams) UPSTREAMS="$2"; shift 2 ;;
    --pg-listen) PG_LISTEN="$2"; shift 2 ;;
    --pg-allow) PG_ALLOW="$2"; shift 2 ;;
    -h|--help) sed -n '2,36p' "$0"; exit 0 ;;
    -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    *) N="$1"; shift ;;
  esac
done
N=${N:-$(nproc)}
case "$N" in ''|*[!0-9]*) echo "N must be a number" >&2; exit 2 ;; esac
[ "$APPS" = 1 ] || [ -n "$UPSTREAMS" ] || { echo "--proxy-only needs --upstreams" >&2; exit 2; }
TLS=0
{ [ -n "$TLS_CERT" ] || [ "$SELF_SIGNED" = 1 ]; } && TLS=1
PORT=${PORT:-$([ "$TLS" = 1 ] && echo 8443 || echo 8080)}
APP_PORT=${MIZAN_APP_PORT:-8601}
DATA=${MIZAN_DATA_DIR:-$ROOT/data}
RUN="$DATA/run"
mkdir -p "$RUN"
rm -f "$RUN/stopping"
[ -f "$DATA/.gitignore" ] || echo '*' > "$DATA/.gitignore"
export MIZAN_DATA_DIR="$DATA"
export MIZAN_MAX_UPLOAD_MB=${MIZAN_MAX_UPLOAD_MB:-200}
export MIZAN_WS_PING_S=${MIZAN_WS_PING_S:-10}
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
PY=.venv/bin/python

need() {  # need <command> <debian package>
  command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || {
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$2"
  }
}
[ "$PROXY" = 1 ] && need nginx nginx
[ -x .venv/bin/streamlit ] || make .venv/.runtime

SUPERVISORS=()
PG_STOP=""
cleanup() {
  trap - EXIT INT TERM
  echo "stopping…"
  touch "$RUN/stopping"
  for pid in "${SUPERVISORS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for file in "$RUN"/*.pid; do
    [ -f "$file" ] && kill "$(cat "$file")" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  rm -f "$RUN"/app-*.pid "$RUN/nginx.pid"
  [ -n "$PG_STOP" ] && eval "$PG_STOP" >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM

# supervise NAME CMD...: run CMD (output to $RUN/NAME.log), start it again whenever it exits,
# until this script stops. Its pid is in $RUN/NAME.pid (the watchdog below kills hung ones).
supervise() {
  local name=$1; shift
  local delay=${MIZAN_RESTART_DELAY_S:-1}
  while [ ! -e "$RUN/stopping" ]; do
    "$@" >>"$RUN/$name.log" 2>&1 &
    echo $! >"$RUN/$name.pid"
    wait $! && status=0 || status=$?
    [ -e "$RUN/stopping" ] && break
    echo "$(date '+%F %T') $name exited with status $status; starting it again in ${delay}s" \
      | tee -a "$RUN/supervisor.log" >&2
    sleep "$delay"
  done
}

# --- the database ---------------------------------------------------------------------------
if [ "$POSTGRES" = 1 ] && [ -z "${MIZAN_DATABASE_URL:-}" ]; then
  need pg_ctlcluster postgresql
  PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  PGDATA="$DATA/pg"
  SOCKET="$RUN/pg-socket"      # private: only the server's user (and root) can reach it
  PGPORT=${MIZAN_PG_PORT:-5439}
  PWFILE="$DATA/pg-password"
  AS=()
  mkdir -p "$PGDATA" "$SOCKET"
  chmod 700 "$PGDATA" "$SOCKET"
  if [ "$(id -u)" = 0 ]; then  # PostgreSQL refuses to run as root
    AS=(runuser -u postgres --)
    chown postgres:postgres "$PGDATA" "$SOCKET"
  fi
  if [ ! -s "$PWFILE" ]; then
    (umask 077; $PY -c "import secrets; print(secrets.token_urlsafe(24))" >"$PWFILE")
  fi
  PASSWORD=$(cat "$PWFILE")
  pg() { "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w "$@" >/dev/null; }
  if [ ! -f "$PGDATA/PG_VERSION" ]; then
    initpw="$RUN/.initpw"  # read by initdb (as the server's user), removed at once
    (umask 077; echo "$PASSWORD" >"$initpw")
    [ "$(id -u)" = 0 ] && chown postgres "$initpw"
    "${AS[@]}" "$PGBIN/initdb" -D "$PGDATA" -U mizan --auth=scram-sha-256 \
      --pwfile="$initpw" --encoding=UTF8 >/dev/null
    rm -f "$initpw"
  elif grep -Eq '^[^#]*\btrust\b' "$PGDATA/pg_hba.conf"; then
    # a cluster from an earlier run.sh trusted every local connection: set the password
    # through the private socket only, then switch to password authentication below
    pg -o "-p $PGPORT -k $SOCKET -c listen_addresses=''" start
    "${AS[@]}" "$PGBIN/psql" -h "$SOCKET" -p "$PGPORT" -U mizan -d postgres -qAt \
      -c "ALTER ROLE mizan PASSWORD '$PASSWORD'" >/dev/null
    pg -m fast stop
  fi
  {
    echo "# written by deploy/run.sh on every start: passwords only, nobody trusted"
    echo "local all all scram-sha-256"
    echo "host all mizan 127.0.0.1/32 scram-sha-256"
    echo "host all mizan ::1/128 scram-sha-256"
    for cidr in ${PG_ALLOW//,/ }; do echo "host all mizan $cidr scram-sha-256"; done
  } >"$PGDATA/pg_hba.conf"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$PGDATA/pg_hba.conf"
  pg -o "-p $PGPORT -k $SOCKET -c unix_socket_permissions=0700 -c listen_addresses='$PG_LISTEN' -c max_connections=300 -c password_encryption=scram-sha-256" start
  PG_STOP="${AS[*]} $PGBIN/pg_ctl -D $PGDATA -m fast -w stop"
  # the password travels in a libpq password file (mode 600), never in a URL or ps output
  (umask 077; echo "*:$PGPORT:*:mizan:$PASSWORD" >"$DATA/pgpass")
  export PGPASSFILE="$DATA/pgpass"
  export MIZAN_DATABASE_URL="postgresql://mizan@127.0.0.1:$PGPORT/postgres"
fi
if [ "$APPS" = 1 ]; then
  # settings checked and the schema migrated once, before the processes start
  $PY -c "from live import db, limits; limits.from_env(); db.timeouts(); db.engine(); \
print('database:', db.engine().url.render_as_string(hide_password=True))"
fi

# --- the app processes ------------------------------------------------------------------------
APP_PORTS=()
OWN_UPSTREAMS=""
if [ "$APPS" = 1 ]; then
  for i in $(seq 0 $((N - 1))); do
    port=$((APP_PORT + i))
    APP_PORTS+=("$port")
    supervise "app-$port" .venv/bin/streamlit run app.py \
      --server.port "$port" --server.address "$BIND" --server.headless true \
      --server.fileWatcherType none --server.runOnSave false \
      --server.maxUploadSize "$MIZAN_MAX_UPLOAD_MB" \
      --server.websocketPingInterval "$MIZAN_WS_PING_S" \
      --browser.gatherUsageStats false --global.developmentMode false \
      --runner.postScriptGC false --client.showErrorDetails none &
    SUPERVISORS+=($!)
    OWN_UPSTREAMS+="${OWN_UPSTREAMS:+,}$BIND:$port"
  done
  for port in "${APP_PORTS[@]}"; do
    for _ in $(seq 1 300); do
      curl -fs "http://$BIND:$port/_stcore/health" >/dev/null 2>&1 && break
      sleep 0.2
    done
    curl -fs "http://$BIND:$port/_stcore/health" >/dev/null || {
      echo "app process on $BIND:$port did not start; see $RUN/app-$port.log" >&2; exit 1; }
  done
fi

# watchdog: an app process that answers nothing AND uses no CPU (stopped, deadlocked) for
# MIZAN_WATCHDOG_S is killed, and its supervisor starts a new one; nginx has already routed its
# browsers elsewhere meanwhile. A process that is merely slow because the machine is
# overloaded keeps using CPU and is left alone: killing it would drop every student on it.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
watchdog() {
  local limit=${MIZAN_WATCHDOG_S:-30}
  [ "$limit" -gt 0 ] 2>/dev/null || return 0
  local idle=$(( limit * $(getconf CLK_TCK) / 100 ))  # under 1 % of a core: not working
  declare -A since=() ticks=()
  while [ ! -e "$RUN/stopping" ]; do
    sleep 2
    for port in "${APP_PORTS[@]}"; do
      now=$(date +%s)
      pid=$(cat "$RUN/app-$port.pid" 2>/dev/null || true)
      [ -n "$pid" ] || continue
      if curl -fs -m 3 "http://$BIND:$port/_stcore/health" >/dev/null 2>&1; then
        since[$port]=""
      elif [ -z "${since[$port]:-}" ]; then
        since[$port]=$now
        ticks[$port]=$(cpu_ticks "$pid")
      elif [ $((now - since[$port])) -ge "$limit" ]; then
        used=$(( $(cpu_ticks "$pid") - ticks[$port] ))
        if [ "$used" -le "$idle" ] && kill -9 "$pid" 2>/dev/null; then
          echo "$(date '+%F %T') app-$port: no health answer and no CPU used for ${limit}s: killed" \
            | tee -a "$RUN/supervisor.log" >&2
          since[$port]=$((now + 60))  # time for the new process to start
        else
          echo "$(date '+%F %T') app-$port: slow to answer but working (overloaded?): left running" \
            >>"$RUN/supervisor.log"
          since[$port]=$now
          ticks[$port]=$(cpu_ticks "$pid")
        fi
      fi
    done
  done
}
if [ "$APPS" = 1 ]; then
  watchdog &
  SUPERVISORS+=($!)
fi

# --- nginx ------------------------------------------------------------------------------------
if [ "$PROXY" = 1 ]; then
  if [ "$SELF_SIGNED" = 1 ] && [ -z "$TLS_CERT" ]; then
    TLS_CERT="$DATA/tls/cert.pem"
    TLS_KEY="$DATA/tls/key.pem"
    if [ ! -s "$TLS_CERT" ]; then
      mkdir -p "$DATA/tls" && chmod 700 "$DATA/tls"
      names="DNS:localhost,DNS:$(hostname),IP:127.0.0.1"
      for ip in $(hostname -I 2>/dev/null); do names+=",IP:$ip"; done
      openssl req -x509 -newkey rsa:2048 -nodes -days 825 -subj "/CN=Mizan classroom" \
        -addext "subjectAltName=$names" -keyout "$TLS_KEY" -out "$TLS_CERT" 2>/dev/null
      chmod 600 "$TLS_KEY"
    fi
  fi
  UPSTREAMS=${UPSTREAMS:-$OWN_UPSTREAMS}
  RENDER=(--run "$RUN" --listen "$PORT" --upstream "$UPSTREAMS" --out "$RUN/nginx.conf")
  if [ "$TLS" = 1 ]; then
    [ -s "$TLS_CERT" ] && [ -s "$TLS_KEY" ] || {
      echo "certificate or key missing: $TLS_CERT $TLS_KEY" >&2; exit 2; }
    RENDER+=(--tls-cert "$(realpath "$TLS_CERT")" --tls-key "$(realpath "$TLS_KEY")")
    [ "$SELF_SIGNED" = 1 ] || RENDER+=(--hsts)
    [ -n "$REDIRECT_PORT" ] && RENDER+=(--redirect-listen "$REDIRECT_PORT")
  fi
  [ "$(id -u)" = 0 ] && RENDER+=(--user www-data)
  mkdir -p "$RUN"/{client_body,proxy,fastcgi,uwsgi,scgi}
  $PY deploy/render_nginx.py "${RENDER[@]}"
  NGINX=$(command -v nginx || echo /usr/sbin/nginx)
  "$NGINX" -t -q -c "$RUN/nginx.conf" -p "$RUN"
  supervise nginx "$NGINX" -c "$RUN/nginx.conf" -p "$RUN" &
  SUPERVISORS+=($!)
  scheme=$([ "$TLS" = 1 ] && echo https || echo http)
  for _ in $(seq 1 100); do
    curl -ksf "$scheme://127.0.0.1:$PORT/_stcore/health" >/dev/null 2>&1 && break
    sleep 0.1
  done
  echo "Mizan classroom: nginx on port $PORT in front of ${UPSTREAMS//,/ }"
  echo "  instructor and students: $scheme://$(hostname -I 2>/dev/null | awk '{print $1}'):$PORT/live"
fi
if [ "$APPS" = 1 ] && [ "$PROXY" = 0 ]; then
  if [ "${#APP_PORTS[@]}" = 0 ]; then
    echo "Mizan: the database only (${MIZAN_DATABASE_URL:-SQLite})"
  else
    echo "Mizan app processes on $BIND: ${APP_PORTS[*]}"
  fi
fi
echo "  logs: $RUN   (Ctrl-C stops everything)"
wait "${SUPERVISORS[@]}"
