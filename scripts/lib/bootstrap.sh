# shellcheck shell=bash
# Shared bootstrap for scripts/run and scripts/test (sourced, not executed).
#
# Steps (each prints an "==> step" line): Python venv + plugin install, PostgreSQL and Redis on localhost,
# the `netbox` DB role, the development NetBox configuration in .dev/, and the core template DB (all NetBox
# core migrations, no plugin) that the dev DB and the test DB are cloned from.
#
# Environment: AIFABRIC_DB_PREFIX (default aifabric) names all databases; AIFABRIC_PYTHON forces the Python used to
# create .venv.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DEV_DIR=$REPO/.dev
VENV=$REPO/.venv
DB_PREFIX=${AIFABRIC_DB_PREFIX:-aifabric}
# What decides `pip install -c constraints-dev.txt -e '.[dev]'`: the requirements (setup.py), the pinned versions of
# every package (constraints-dev.txt), the build settings (pyproject.toml), the version in the package metadata. A
# change to any of them reinstalls.
CONSTRAINTS=constraints-dev.txt
INSTALL_INPUTS=(setup.py "$CONSTRAINTS" pyproject.toml netbox_aifabric/version.py)
PG_HOST=127.0.0.1
PG_PORT=5432
APT_UPDATED=
CLEANUP_PIDS=()
POLICY_RC_D=

# ---------------------------------------------------------------------------------------------------------------
# Output, timing, cleanup
# ---------------------------------------------------------------------------------------------------------------
step() { printf '==> %s\n' "$*"; }
info() { printf '    %s\n' "$*"; }
die() {
    printf '\nERROR: %s\n' "$1" >&2
    shift
    local line
    for line in "$@"; do printf '       %s\n' "$line" >&2; done
    exit 1
}
have() { command -v "$1" >/dev/null 2>&1; }
now() { # seconds since the epoch, with a decimal point whatever the locale
    local t=${EPOCHREALTIME:-$(date +%s.%N)}
    printf '%s' "${t/,/.}"
}
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { d = b - a; printf (d < 10 ? "%.2f s" : "%.1f s"), d }'; }
is_root() { [[ $EUID -eq 0 ]]; }
is_debian() { [[ -f /etc/debian_version ]] && have apt-get; }

# Background processes listed in CLEANUP_PIDS are stopped when the script exits (also on Ctrl-C); a temporary
# policy-rc.d (ensure_frr) is removed.
cleanup() {
    local pid
    if [[ -n $POLICY_RC_D ]]; then rm -f "$POLICY_RC_D"; fi
    for pid in "${CLEANUP_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || continue
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        kill -KILL "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# shellcheck disable=SC2034  # used by the sourcing scripts
START_TIME=$(now)
mkdir -p "$DEV_DIR"
chmod 700 "$DEV_DIR"

[[ $DB_PREFIX =~ ^[a-z][a-z0-9_]{0,39}$ ]] ||
    die "AIFABRIC_DB_PREFIX='$DB_PREFIX' is not a valid database name" \
        'use lower-case letters, digits and _, starting with a letter, at most 40 characters'

apt_install() {
    if [[ -z $APT_UPDATED ]]; then
        info "apt-get update (log: .dev/apt.log)"
        DEBIAN_FRONTEND=noninteractive apt-get update >>"$DEV_DIR/apt.log" 2>&1 ||
            { tail -n 20 "$DEV_DIR/apt.log" >&2; die 'apt-get update failed'; }
        APT_UPDATED=1
    fi
    info "apt-get install -y $*"
    DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" >>"$DEV_DIR/apt.log" 2>&1 ||
        { tail -n 20 "$DEV_DIR/apt.log" >&2; die "apt-get install $* failed"; }
}

wait_until() { # wait_until <seconds> <command...>
    local deadline=$((SECONDS + $1))
    shift
    until "$@"; do
        ((SECONDS < deadline)) || return 1
        sleep 1
    done
}

# ---------------------------------------------------------------------------------------------------------------
# Python >= 3.12 and the venv
# ---------------------------------------------------------------------------------------------------------------
python_ok() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; }

find_python() {
    local candidate root
    if [[ -n ${AIFABRIC_PYTHON:-} ]]; then
        python_ok "$AIFABRIC_PYTHON" || die "AIFABRIC_PYTHON=$AIFABRIC_PYTHON is not a Python >= 3.12"
        PYTHON=$AIFABRIC_PYTHON
        return
    fi
    for candidate in python3 python3.13 python3.12; do
        if have "$candidate" && python_ok "$candidate"; then
            PYTHON=$(command -v "$candidate")
            return
        fi
    done
    # pyenv installs that are not on PATH; newest first
    local roots=()
    have pyenv && roots+=("$(pyenv root 2>/dev/null)")
    roots+=("$HOME/.pyenv")
    for root in "${roots[@]}"; do
        [[ -n $root && -d $root/versions ]] || continue
        while read -r candidate; do
            if python_ok "$candidate"; then
                PYTHON=$candidate
                return
            fi
        done < <(printf '%s\n' "$root"/versions/3.1[2-9]*/bin/python | sort -rV)
    done
    local hint="install one, e.g. 'pyenv install 3.12'"
    if grep -qs 'VERSION_ID="24.04"' /etc/os-release; then
        hint="install one: 'apt-get install python3.12 python3.12-venv'"
    fi
    die 'No Python >= 3.12 found (tried python3, python3.13, python3.12 on PATH and pyenv versions 3.12+).' \
        "$hint; or point AIFABRIC_PYTHON at one."
}

# Create .venv (Python >= 3.12) and install the plugin editable with its dev extras at the versions of
# constraints-dev.txt; skipped when the sha256 of the files that decide the install (INSTALL_INPUTS) matches the stamp
# of the last install.
install_up_to_date() { # the stamp of the last full install matches its inputs and the plugin is installed
    local stamp=$VENV/.aifabric-install-stamp
    [[ -f $stamp && $(<"$stamp") == "$(install_inputs_hash)" ]] &&
        "$VENV/bin/python" -c 'import importlib.metadata as m; m.distribution("netbox-aifabric")' 2>/dev/null
}
install_inputs_hash() { (cd "$REPO" && sha256sum "${INSTALL_INPUTS[@]}" | sha256sum | cut -d' ' -f1); }

make_venv() {
    if [[ -e $VENV ]] && ! python_ok "$VENV/bin/python"; then
        info '.venv is broken or its Python is older than 3.12: recreating it'
        rm -rf "$VENV"
    fi
    if [[ ! -e $VENV ]]; then
        find_python
        info "creating .venv with $PYTHON ($("$PYTHON" -V 2>&1))"
        "$PYTHON" -m venv "$VENV" ||
            die "'$PYTHON -m venv' failed." \
                'On Debian/Ubuntu install the venv module, e.g. apt-get install python3.12-venv'
    fi
}

# NetBox alone first (its pin from constraints-dev.txt): on a new machine the core template's migrations, which need
# only NetBox, then run while the rest of the dev venv (Ansible, pyavd, Playwright, ...) installs beside them.
ensure_netbox_installed() {
    step 'Python venv (.venv): NetBox first'
    make_venv
    local pin
    pin=$(grep -E '^netbox==' "$REPO/$CONSTRAINTS") || die "$CONSTRAINTS pins no netbox version"
    if "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('netbox') != '${pin#netbox==}')" \
        2>/dev/null; then
        info "$pin installed"
        return
    fi
    info "pip install -c $CONSTRAINTS $pin (log: .dev/pip-install.log)"
    local t0
    t0=$(now)
    if ! (cd "$REPO" && "$VENV/bin/python" -m pip install -c "$CONSTRAINTS" "$pin") >"$DEV_DIR/pip-install.log" 2>&1
    then
        grep -v 'is ignored' "$DEV_DIR/pip-install.log" | tail -n 60 >&2
        die 'pip install of NetBox failed (full log: .dev/pip-install.log)'
    fi
    info "installed ($(since "$t0"))"
}

ensure_venv() {
    step 'Python venv (.venv) and plugin install'
    make_venv
    if install_up_to_date; then
        info "$("$VENV/bin/python" -V), plugin install up to date"
        return
    fi
    local want
    want=$(install_inputs_hash)
    info "pip install -c $CONSTRAINTS -e '.[dev]' (a few minutes on a new venv; log: .dev/pip-install.log)"
    local t0
    t0=$(now)
    if ! (cd "$REPO" && "$VENV/bin/python" -m pip install -c "$CONSTRAINTS" -e '.[dev]') \
        >>"$DEV_DIR/pip-install.log" 2>&1; then
        grep -v 'is ignored' "$DEV_DIR/pip-install.log" | tail -n 60 >&2
        die 'pip install failed (full log: .dev/pip-install.log)'
    fi
    printf '%s\n' "$want" >"$VENV/.aifabric-install-stamp"
    info "installed ($(since "$t0"))"
}

# ---------------------------------------------------------------------------------------------------------------
# PostgreSQL >= 15 and Redis >= 6 on localhost
# ---------------------------------------------------------------------------------------------------------------
pg_answers() {
    if have pg_isready; then
        pg_isready -q -h "$PG_HOST" -p "$PG_PORT"
    else
        (exec 3<>"/dev/tcp/$PG_HOST/$PG_PORT") 2>/dev/null
    fi
}

pg_start_installed() { # start an installed but stopped server; false when there is none we can start
    local started=1 ver name port status _
    if have pg_lsclusters && have pg_ctlcluster; then
        while read -r ver name port status _; do
            if [[ $port == "$PG_PORT" && $status == down* ]]; then
                info "starting PostgreSQL cluster $ver/$name"
                pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" start && started=0
            fi
        done < <(pg_lsclusters --no-header 2>/dev/null)
    fi
    if ((started != 0)) && have service && [[ -e /etc/init.d/postgresql ]]; then
        info 'service postgresql start'
        service postgresql start && started=0
    fi
    return "$started"
}

ensure_postgres() {
    step "PostgreSQL on $PG_HOST:$PG_PORT"
    if ! pg_answers; then
        # use an installed one, else install it (root on Debian/Ubuntu), else explain
        if pg_start_installed; then wait_until 30 pg_answers || true; fi
        if ! pg_answers && is_root && is_debian; then
            info 'PostgreSQL is not installed or could not be started: installing it with apt-get'
            apt_install postgresql
            pg_start_installed || true
        fi
        wait_until 30 pg_answers ||
            die "PostgreSQL does not answer on $PG_HOST:$PG_PORT." \
                'Install PostgreSQL >= 15 and start it, e.g. (Debian/Ubuntu, as root):' \
                '  apt-get install postgresql && service postgresql start'
    fi
    if ! have psql; then
        if is_root && is_debian; then apt_install postgresql-client; fi
        have psql || die 'psql (PostgreSQL client) is missing.' 'Install it, e.g. apt-get install postgresql-client'
    fi
}

redis_version() { "$VENV/bin/python" "$REPO/scripts/devenv.py" redis-version 2>/dev/null; }

redis_start_installed() {
    if have redis-server; then
        info 'starting redis-server (daemon on 127.0.0.1:6379, nothing persisted)'
        (cd / && redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save '' --appendonly no) \
            >/dev/null 2>&1 && wait_until 10 redis_version >/dev/null && return 0
    fi
    if have service && [[ -e /etc/init.d/redis-server ]]; then
        info 'service redis-server start'
        service redis-server start && return 0
    fi
    return 1
}

ensure_redis() {
    step 'Redis on 127.0.0.1:6379'
    local version
    if ! version=$(redis_version); then
        # use an installed one, else install it (root on Debian/Ubuntu), else explain
        if redis_start_installed; then version=$(wait_until 10 redis_version) || true; fi
        if [[ -z $version ]] && is_root && is_debian; then
            info 'Redis is not installed or could not be started: installing it with apt-get'
            apt_install redis-server
            redis_start_installed || true
        fi
        version=$(wait_until 20 redis_version) ||
            die 'Redis does not answer on 127.0.0.1:6379.' \
                'Install Redis >= 6 and start it, e.g. (Debian/Ubuntu, as root):' \
                '  apt-get install redis-server && service redis-server start'
    fi
    version=${version##*$'\n'}
    ((${version%%.*} >= 6)) || die "Redis $version on 127.0.0.1:6379 is too old: NetBox needs Redis >= 6."
    info "Redis $version"
}

# ---------------------------------------------------------------------------------------------------------------
# The `netbox` DB role (password netbox, LOGIN CREATEDB); all databases are created and owned by it.
# ---------------------------------------------------------------------------------------------------------------
psql_netbox() {
    PGOPTIONS='-c client_min_messages=warning' PGPASSWORD=netbox \
        psql -X -w -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -p "$PG_PORT" -U netbox -d postgres "$@"
}

# Superuser access: `postgres` over TCP (trust), else, as root, the postgres OS user over the socket (peer).
psql_super() {
    if env -u PGPASSWORD psql -X -w -q -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -Atc 'SELECT 1' \
        >/dev/null 2>&1; then
        env -u PGPASSWORD psql -X -w -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres "$@"
    elif is_root && have runuser && id postgres >/dev/null 2>&1; then
        (cd / && runuser -u postgres -- psql -X -w -q -v ON_ERROR_STOP=1 -p "$PG_PORT" -d postgres "$@")
    else
        return 2
    fi
}

ensure_role() {
    step 'PostgreSQL role netbox'
    local createdb exists
    if ! createdb=$(psql_netbox -Atc 'SELECT rolcreatedb FROM pg_roles WHERE rolname = current_user' 2>/dev/null); then
        exists=$(psql_super -Atc "SELECT 1 FROM pg_roles WHERE rolname = 'netbox'") ||
            die "Cannot log in as netbox/netbox on $PG_HOST:$PG_PORT, nor as a PostgreSQL superuser to create it." \
                "As a superuser run: CREATE ROLE netbox LOGIN CREATEDB PASSWORD 'netbox';"
        [[ $exists == 1 ]] &&
            die "Role netbox exists but cannot log in with password 'netbox' over TCP $PG_HOST:$PG_PORT." \
                'These scripts never change an existing role. Fix it yourself, e.g. as a superuser:' \
                "  ALTER ROLE netbox LOGIN CREATEDB PASSWORD 'netbox';  (or check pg_hba.conf)"
        psql_super -c "CREATE ROLE netbox LOGIN CREATEDB PASSWORD 'netbox'"
        info 'created role netbox (password netbox, LOGIN CREATEDB)'
        createdb=$(psql_netbox -Atc 'SELECT rolcreatedb FROM pg_roles WHERE rolname = current_user') ||
            die "Created role netbox, but it cannot log in over TCP $PG_HOST:$PG_PORT: check pg_hba.conf"
    fi
    [[ $createdb == t ]] ||
        die 'Role netbox lacks CREATEDB (needed to clone the template DB).' \
            'These scripts never change an existing role; as a superuser run: ALTER ROLE netbox CREATEDB;'
    local version
    version=$(psql_netbox -Atc 'SHOW server_version_num')
    ((version >= 150000)) ||
        die "PostgreSQL $(psql_netbox -Atc 'SHOW server_version') on $PG_HOST:$PG_PORT is too old: NetBox needs >= 15."
    info "PostgreSQL $(psql_netbox -Atc 'SHOW server_version'), role netbox OK"
}

db_exists() { [[ $(psql_netbox -Atc "SELECT 1 FROM pg_database WHERE datname = '$1'") == 1 ]]; }

# ---------------------------------------------------------------------------------------------------------------
# NetBox configuration (.dev/, kept out of git) and the netbox command
# ---------------------------------------------------------------------------------------------------------------
NETBOX_VERSION=
CORE_DB=

write_config() {
    step 'NetBox development configuration (.dev/)'
    NETBOX_VERSION=$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("netbox"))') ||
        die 'NetBox is not installed in .venv (it comes with the plugin install: pip install -e ".[dev]")'
    CORE_DB=${DB_PREFIX}_core_${NETBOX_VERSION//[^0-9a-zA-Z]/_}
    CORE_DB=${CORE_DB,,}
    "$VENV/bin/python" "$REPO/scripts/devenv.py" write-config --prefix "$DB_PREFIX" --core-db "$CORE_DB"
}

# The generated configuration modules are imported from .dev/; NetBox's instance root (media, scripts, static) is
# .dev/ too. Pick the module per command: NETBOX_CONFIGURATION=aifabric_core|aifabric_dev|aifabric_test.
export PYTHONPATH=$DEV_DIR${PYTHONPATH:+:$PYTHONPATH}
export NETBOX_ROOT=$DEV_DIR
NETBOX=$VENV/bin/netbox

# ---------------------------------------------------------------------------------------------------------------
# Core template DB <prefix>_core_<netbox version>: NetBox core migrations only, built once (5-7 minutes), then
# cloned in well under a second. Built as <name>_building and renamed when complete, so an interrupted build never
# leaves a half-migrated template. Nothing else ever connects to it (PostgreSQL refuses to clone a template that
# has open connections).
# ---------------------------------------------------------------------------------------------------------------
CORE_PID= CORE_T0=
# Start building the core template in the background (returns at once); finish_core_template waits for it.
start_core_template() {
    step "Core template DB $CORE_DB"
    if db_exists "$CORE_DB"; then
        info 'exists'
        return
    fi
    # One build at a time on this machine (a second scripts/run or scripts/test waits for it).
    local lock=${TMPDIR:-/tmp}/$CORE_DB.$EUID.lock
    exec 9>"$lock"
    if ! flock -n 9; then
        info "another build of $CORE_DB is running; waiting for it"
        flock 9
    fi
    if db_exists "$CORE_DB"; then
        exec 9>&-
        info 'built by the other process'
        return
    fi
    local building=${CORE_DB}_building log=$DEV_DIR/core-migrate.log
    psql_netbox -c "DROP DATABASE IF EXISTS $building WITH (FORCE)" -c "CREATE DATABASE $building OWNER netbox"
    info "applying all NetBox $NETBOX_VERSION core migrations in the background: 5-7 minutes on 2 cores, once per"
    info "NetBox version (log: .dev/core-migrate.log)"
    CORE_T0=$(now)
    NETBOX_CONFIGURATION=aifabric_core PYTHONUNBUFFERED=1 "$NETBOX" migrate --no-input >"$log" 2>&1 9>&- &
    CORE_PID=$!
    CLEANUP_PIDS+=("$CORE_PID")
}

finish_core_template() {
    [[ -n $CORE_PID ]] || return 0
    step "Core template DB $CORE_DB: waiting for its migrations"
    local building=${CORE_DB}_building log=$DEV_DIR/core-migrate.log last=$SECONDS
    while kill -0 "$CORE_PID" 2>/dev/null; do
        sleep 2
        if ((SECONDS - last >= 30)); then
            last=$SECONDS
            info "... $(grep -c 'Applying ' "$log" || true) migrations applied ($(since "$CORE_T0"))"
        fi
    done
    if ! wait "$CORE_PID"; then
        tail -n 40 "$log" >&2
        die "Building $CORE_DB failed (log: .dev/core-migrate.log); $building is rebuilt on the next run."
    fi
    CORE_PID=
    psql_netbox -c "ALTER DATABASE $building RENAME TO $CORE_DB"
    exec 9>&-
    info "built $CORE_DB: $(grep -c 'Applying ' "$log" || true) migrations ($(since "$CORE_T0"))"
}

# Clone the core template into <name> unless it exists.
clone_core() {
    local name=$1
    if db_exists "$name"; then
        info "$name exists"
        return
    fi
    psql_netbox -c "CREATE DATABASE $name TEMPLATE $CORE_DB OWNER netbox" ||
        die "Cloning $CORE_DB into $name failed: PostgreSQL refuses while anything is connected to $CORE_DB." \
            "See who: psql -h $PG_HOST -U netbox -d postgres -c \"SELECT pid, usename, application_name" \
            "         FROM pg_stat_activity WHERE datname = '$CORE_DB'\""
    info "created $name from $CORE_DB"
}

# All shared steps, in order.
# Debian's Chromium for the browser tests (Playwright drives it; Playwright's own browser download is not used)
ensure_chromium() {
    step 'Chromium for the browser tests'
    if have chromium || [[ -x /usr/bin/chromium ]]; then
        info "$( (chromium --version || /usr/bin/chromium --version) 2>/dev/null | head -n 1)"
        return
    fi
    if is_root && is_debian; then
        apt_install chromium
        return
    fi
    die 'Chromium is missing: the browser tests need it' \
        'Debian/Ubuntu: sudo apt-get install chromium (the tests run it as /usr/bin/chromium)'
}

# Debian's FRR for the FRR config check (tests/frr.py: vtysh and the zebra, staticd and bgpd daemons in --dryrun
# mode; no FRR daemon keeps running). The package would start and enable its frr service: a temporary policy-rc.d
# (unless one exists, as in Docker images) forbids the start, `update-rc.d frr disable` (systemd and SysV) undoes
# the enable. 11-15 s on Debian 12 (FRR 8.4.4: 4 packages, 4.4 MB to download, 22.5 MB installed).
frr_dir() { # the directory with FRR's daemons, where tests/frr.py looks for them
    local dir
    for dir in /usr/lib/frr /usr/libexec/frr /usr/sbin; do
        if [[ -x $dir/zebra && -x $dir/staticd && -x $dir/bgpd ]]; then
            printf '%s' "$dir"
            return 0
        fi
    done
    return 1
}

frr_version() { "$1/bgpd" --version 2>/dev/null | awk '/ version / { print "FRR " $NF; exit }'; }

ensure_frr() {
    step 'FRR for the FRR config check (tests/frr.py)'
    if [[ ${AIFABRIC_SKIP_FRR:-} == 1 ]]; then
        info 'skipped: AIFABRIC_SKIP_FRR=1 (the FRR tests are skipped too)'
        return
    fi
    local dir t0
    if is_root && is_debian && ! have ping; then
        apt_install iputils-ping # the fabric lab's jumbo pings (ping -M do); its tests skip without it
    fi
    if have vtysh && dir=$(frr_dir); then
        info "$(frr_version "$dir") (daemons in $dir; the fabric lab runs them in network namespaces)"
        return
    fi
    if is_root && is_debian; then
        t0=$(now)
        if [[ ! -e /usr/sbin/policy-rc.d ]]; then
            POLICY_RC_D=/usr/sbin/policy-rc.d # removed by cleanup() too, should the install fail
            printf '#!/bin/sh\n# scripts/test: no service starts while FRR is installed\nexit 101\n' >"$POLICY_RC_D"
            chmod 755 "$POLICY_RC_D"
        fi
        apt_install frr
        if [[ -n $POLICY_RC_D ]]; then
            rm -f "$POLICY_RC_D"
            POLICY_RC_D=
        fi
        update-rc.d frr disable >>"$DEV_DIR/apt.log" 2>&1 ||
            die 'update-rc.d frr disable failed (log: .dev/apt.log): disable the frr service yourself'
        dir=$(frr_dir) || die 'apt-get install frr did not install zebra, staticd and bgpd (log: .dev/apt.log)'
        info "installed $(frr_version "$dir"), frr service not started and disabled ($(since "$t0"))"
        return
    fi
    die 'FRR is missing: the FRR config check (tests/frr.py) needs vtysh and the zebra, staticd and bgpd daemons.' \
        'Debian/Ubuntu: sudo apt-get install frr && sudo update-rc.d frr disable (no FRR daemon needs to run);' \
        'or skip the FRR tests: AIFABRIC_SKIP_FRR=1 scripts/test'
}

# NetBox is installed first so that the core template's migrations (minutes, one core) overlap the rest of the
# install (minutes, mostly downloads and unpacking) on a new machine; elsewhere both steps find their work done.
bootstrap() {
    local installed=
    if install_up_to_date; then
        ensure_venv
        installed=1
    else
        ensure_netbox_installed
    fi
    ensure_postgres
    ensure_redis
    ensure_role
    write_config
    start_core_template
    [[ -n $installed ]] || ensure_venv
    finish_core_template
}
