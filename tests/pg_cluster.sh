# pg_cluster.sh - a throwaway PostgreSQL server for one test (sourced by tests/fleet_cli.sh).
#
#   pg_start        initdb a cluster in a new temporary folder and start it on a Unix socket there,
#                   nothing on TCP (listen_addresses ''), with one database `ringbench`; sets PG_URI
#                   (postgresql:///ringbench?host=FOLDER&user=USER), PG_SOCK, PG_USER, PG_DATA.
#                   Returns 77 when there is no server here (no initdb / pg_ctl), 1 when it fails.
#   pg_stop         stops it (immediate) and removes the folder; pg_start arranges it on EXIT too, so a
#                   failing test leaves nothing behind
#   pg_down, pg_up  stop (fast) and start the same server again (a server stopped mid-run)
#   pg_sql SQL      runs SQL in the database with psql, prints the rows bare (-tA)
#
# PostgreSQL refuses to run as root: as root (CI runs as root) the server runs as the system user
# ringbench-pg, created once (useradd --system, no home, no shell) when it is missing; otherwise as
# the user running the test. Authentication is `trust` on the private socket only: the folder is
# the server user's, mode 0700, so no other user can connect. The server programs are looked for
# on PATH, then where Debian keeps them (/usr/lib/postgresql/VERSION/bin, newest first), as
# .ci/deps.sh checks them.
PG_DIR="" PG_BIN="" PG_AS=""

pg_find_bin() {
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        PG_BIN=$(dirname "$(readlink -f "$(command -v initdb)")") # a link on PATH: the folder of the server
        return 0
    fi
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
            PG_BIN=$d
            return 0
        fi
    done
    return 1
}

# The server's user: ringbench-pg as root (created when missing), else this user.
pg_user() {
    if [ "$(id -u)" != 0 ]; then
        PG_USER=$(id -un) PG_AS=""
        return 0
    fi
    PG_USER=ringbench-pg
    if ! id "$PG_USER" >/dev/null 2>&1; then
        useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$PG_USER" ||
            { echo "pg_cluster: cannot create the system user $PG_USER for the server" >&2; return 1; }
    fi
    PG_AS="runuser -u $PG_USER --"
}

pg_start() {
    pg_find_bin || return 77
    pg_user || return 1
    PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rbpg.XXXXXX") || return 1
    trap pg_stop EXIT
    PG_DATA=$PG_DIR/data PG_SOCK=$PG_DIR
    [ -z "$PG_AS" ] || chown "$PG_USER:" "$PG_DIR" || return 1
    $PG_AS "$PG_BIN/initdb" -D "$PG_DATA" -U "$PG_USER" --auth=trust -E UTF8 --locale=C >"$PG_DIR/initdb.log" 2>&1 ||
        { echo "pg_cluster: initdb failed: $(tail -3 "$PG_DIR/initdb.log")" >&2; return 1; }
    pg_up || return 1
    pg_sql_db postgres "CREATE DATABASE ringbench" >/dev/null || return 1
    PG_URI="postgresql:///ringbench?host=$PG_SOCK&user=$PG_USER"
}

pg_up() {
    $PG_AS "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_DIR/server.log" -w -t 60 \
        -o "-c listen_addresses='' -c unix_socket_directories='$PG_SOCK' -c fsync=off -c max_connections=40" \
        start >/dev/null 2>&1 || { echo "pg_cluster: the server did not start: $(tail -3 "$PG_DIR/server.log")" >&2; return 1; }
}

pg_down() {
    $PG_AS "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w stop >/dev/null 2>&1
}

pg_stop() {
    [ -n "$PG_DIR" ] || return 0
    $PG_AS "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w stop >/dev/null 2>&1
    rm -rf "$PG_DIR"
    PG_DIR=""
}

pg_sql_db() {
    psql=$PG_BIN/psql
    [ -x "$psql" ] || psql=psql
    "$psql" -X -q -v ON_ERROR_STOP=1 -tA -h "$PG_SOCK" -U "$PG_USER" -d "$1" -c "$2"
}

pg_sql() { pg_sql_db ringbench "$1"; }
