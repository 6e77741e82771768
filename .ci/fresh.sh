#!/usr/bin/env bash
# fresh.sh - CI's fresh-system stage: the README's quick start, as written, on a Debian 12 that has
# nothing but what `debootstrap --variant=minbase` brings and `git make ca-certificates`.
#
#   bash .ci/fresh.sh        the last stage of .ci/run; alone for a local check (root, network)
#
# 1. A minimal Debian 12 base, bootstrapped from this machine's own Debian mirror (its /etc/apt
#    sources; http://deb.debian.org/debian where it has none, or RINGBENCH_FRESH_MIRROR), is kept
#    between runs in a cache folder outside the clone: ${RINGBENCH_FRESH_CACHE:-~/.cache/ringbench-ci}.
#    It is made again when it is older than RINGBENCH_FRESH_MAX_AGE_DAYS (7: security updates), or
#    when what it is made from changes (the mirror, the suite, the package list or this recipe: their
#    hash names the base), never modified by a run: each run works in an overlay on top of it (a
#    copy where overlayfs is not available), thrown away at the end. Downloaded .deb files are kept
#    in the cache too (apt-archives/), so a run installs every package afresh without fetching it
#    again.
# 2. The commit under test (HEAD of this clone; uncommitted changes are not part of it) is cloned
#    into the new system twice: for root and for a user without sudo.
# 3. That user runs the quick start's first command: it must stop with exit 2 and print ONE install
#    command, "as root: apt-get update && apt-get install -y ...", naming every package of kinds
#    required, tests and optional of .ci/packages that the bare system lacks.
# 4. root runs each line of the README's quick-start block (between <!-- quickstart:begin --> and
#    <!-- quickstart:end -->) in order, exactly as written, in its clone: `make test` must install
#    what it needs itself. There is no CUDA toolkit inside (checked), so this is the machine of a user
#    without nvcc. Every step's wall time is printed, and make test's count of tests.
# /proc, /sys and /dev are mounted into the new system for the run and unmounted by a trap, on
# failure too. The whole stage is bounded by RINGBENCH_FRESH_MINUTES (25).
# Exit status: 0 passed, 1 failed, 77 cannot run here (not root, no debootstrap, no network), said
# loudly; under CI (CI=true) what cannot run is a failure (1), never a skip.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
suite=bookworm # Debian 12
include=git,make,ca-certificates
user=rbuser
minutes=${RINGBENCH_FRESH_MINUTES:-25}
max_age_days=${RINGBENCH_FRESH_MAX_AGE_DAYS:-7}
cache=${RINGBENCH_FRESH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ringbench-ci}
t_stage=$(date +%s)
deadline=$((t_stage + minutes * 60))

say() { printf 'fresh: %s\n' "$*"; }
cannot_run() {
    printf 'fresh: ********************************************************************************\n' >&2
    printf 'fresh: THE FRESH-SYSTEM STAGE CANNOT RUN HERE: %s\n' "$*" >&2
    if [ "${CI:-}" = true ]; then
        printf 'fresh: under CI (CI=true) it must run: FAILED\n' >&2
        printf 'fresh: ********************************************************************************\n' >&2
        exit 1
    fi
    printf 'fresh: SKIPPED (77): the README'"'"'s commands were NOT checked on a fresh system\n' >&2
    printf 'fresh: ********************************************************************************\n' >&2
    exit 77
}
fail() {
    printf 'fresh: FAILED: %s\n' "$*" >&2
    exit 1
}
# step NAME START: one line with the wall time since START (seconds since the epoch).
step() { printf 'fresh: %-62s %5d s\n' "$1" $(($(date +%s) - $2)); }
# left: the seconds this stage has left, at least 1 (timeout 0 would mean none).
# shown COMMAND: the command without its trailing comment, for the step lines.
shown() { printf '%s' "$1" | sed 's/[[:space:]]\{2,\}#.*$//'; }
left() {
    l=$((deadline - $(date +%s)))
    echo $((l > 0 ? l : 1))
}

# --- can it run here? ---------------------------------------------------------------------------------
[ "$(id -u)" = 0 ] || cannot_run "not root (debootstrap, chroot and mounts need root)"
command -v debootstrap >/dev/null 2>&1 || cannot_run "no debootstrap (apt-get install debootstrap; .ci/run installs it)"
for c in chroot mount umount flock git sha256sum; do
    command -v "$c" >/dev/null 2>&1 || cannot_run "no $c"
done
commit=$(git -C "$src" rev-parse HEAD 2>/dev/null) || cannot_run "$src is not a git clone: nothing to clone"

# This machine's Debian mirrors: the URIs of its Debian sources (deb822 .sources and one-line .list
# files), the security archive's apart. Other repositories (a vendor's, a PPA) are left out.
debian_uris() {
    {
        cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }'
        cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
            awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; break } }'
    } | grep -E '^https?://[^ ]*/debian(-security)?/?$' | sed 's:/*$::' | awk '!seen[$0]++'
}
uris=$(debian_uris || true)
mirror=${RINGBENCH_FRESH_MIRROR:-$(printf '%s\n' "$uris" | grep -v -- '-security$' | head -n 1)}
mirror=${mirror:-http://deb.debian.org/debian}
security=$(printf '%s\n' "$uris" | grep -- '-security$' | head -n 1 || true)
security=${security:-http://deb.debian.org/debian-security}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || cannot_run "no $keyring (apt-get install debian-archive-keyring) to check what debootstrap fetches"

# Network: the mirror's host (or the proxy's) must answer on its port.
reach() { # reach URL
    hostport=${1#*://}
    hostport=${hostport%%/*}
    hostport=${hostport##*@}
    host=${hostport%:*} port=${hostport##*:}
    [ "$host" = "$hostport" ] && { case $1 in https:*) port=443 ;; *) port=80 ;; esac }
    timeout 15 bash -c "exec 3<>/dev/tcp/$host/$port" 2>/dev/null
}
proxy=${http_proxy:-${HTTP_PROXY:-}}
reach "${proxy:-$mirror}" || cannot_run "no network: ${proxy:-$mirror} does not answer"

say "commit under test $(git -C "$src" rev-parse --short=12 HEAD) (uncommitted changes are not part of it)"
say "Debian 12 ($suite, minbase + $include) from $mirror; security updates from $security"

# --- the cached base ------------------------------------------------------------------------------------
# The recipe's hash names the base: a change of mirror, suite, packages or of this line makes a new one.
recipe="debootstrap --variant=minbase --include=$include $suite $mirror; recipe 1"
key=$(printf '%s\n' "$recipe" | sha256sum | cut -c1-12)
base=$cache/debian12-$key
mkdir -p "$cache"
exec 9>"$cache/lock"
# One run at a time uses the cache: the overlay's lower folder must not change under a run.
if ! flock -w 600 9; then fail "another fresh-system stage held $cache/lock for 10 minutes"; fi

t=$(date +%s)
age=-1
[ -f "$base/.ringbench-base" ] && age=$(($(date +%s) - $(stat -c %Y "$base/.ringbench-base")))
if [ "$age" -ge 0 ] && [ "$age" -lt $((max_age_days * 86400)) ]; then
    say "base: cached $base ($((age / 3600)) h old; made again after $max_age_days days or when its recipe changes)"
else
    say "base: bootstrapping into $base (a few minutes; the log: $cache/debootstrap.log)"
    rm -rf --one-file-system "$base.new"
    if ! timeout "$(left)" debootstrap --variant=minbase --include="$include" --keyring="$keyring" "$suite" \
        "$base.new" "$mirror" >"$cache/debootstrap.log" 2>&1; then
        tail -n 20 "$cache/debootstrap.log" >&2
        fail "debootstrap failed (above: the end of $cache/debootstrap.log)"
    fi
    printf '%s\n' "$recipe" >"$base.new/.ringbench-base"
    rm -rf --one-file-system "$base"
    mv "$base.new" "$base"
    for old in "$cache"/debian12-*; do # bases of other recipes
        [ "$old" = "$base" ] || rm -rf --one-file-system "$old"
    done
fi
step "base ready" "$t"

# --- this run's system: an overlay on the base, with /proc, /sys, /dev -----------------------------------
run=$(mktemp -d "$cache/run.XXXXXX")
root=$run/root
mounted=() # what cleanup unmounts, last first
cleanup() {
    rc=$?
    set +e
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount -R "${mounted[i]}" 2>/dev/null || umount -R -l "${mounted[i]}" 2>/dev/null
    done
    if findmnt -rn -o TARGET | grep -q "^$run/"; then
        echo "fresh: WARNING: something is still mounted under $run; left in place" >&2
    else
        rm -rf --one-file-system "$run"
    fi
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mnt() { # mnt TARGET MOUNT-ARGS...
    target=$1
    shift
    mount "$@" "$target" || return 1
    mounted+=("$target")
}
mkdir -p "$root" "$run/upper" "$run/work"
if mnt "$root" -t overlay overlay -o "lowerdir=$base,upperdir=$run/upper,workdir=$run/work" 2>/dev/null; then
    :
else
    say "no overlayfs here: copying the base instead"
    cp -a "$base/." "$root/"
fi
mnt "$root/proc" -t proc proc
mnt "$root/sys" --rbind /sys
mount --make-rslave "$root/sys"
mnt "$root/dev" --rbind /dev
mount --make-rslave "$root/dev"
mkdir -p "$cache/apt-archives/partial" "$root/var/cache/apt/archives"
mnt "$root/var/cache/apt/archives" --bind "$cache/apt-archives"
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
rm -f "$root"/etc/apt/sources.list "$root"/etc/apt/sources.list.d/*
cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $suite $suite-updates
Components: main
Signed-By: $keyring

Types: deb
URIs: $security
Suites: $suite-security
Components: main
Signed-By: $keyring
EOF

# No CUDA toolkit inside: this is a machine without nvcc.
if chroot "$root" sh -c 'command -v nvcc || ls -d /usr/local/cuda*' 2>/dev/null; then
    fail "the new system has a CUDA toolkit (above)"
fi

# --- the commit, cloned for root and for a user without sudo ----------------------------------------------
t=$(date +%s)
chroot "$root" useradd -m -s /bin/bash "$user"
# clone DIR OWNER: the commit alone (a shallow fetch: this clone's history is large and not needed).
clone() {
    git init --quiet "$1"
    git -C "$1" fetch --quiet --depth 1 "file://$src" "$commit"
    git -C "$1" checkout --quiet --detach FETCH_HEAD
    chroot "$root" chown -R "$2:$2" "${1#"$root"}"
}
clone "$root/root/ringbench" root
clone "$root/home/$user/ringbench" "$user"
step "cloned into /root/ringbench and /home/$user/ringbench" "$t"

# in_chroot USER COMMAND: COMMAND in USER's clone through a login shell (USER's own PATH and HOME,
# nothing of this machine's environment), bounded by what is left of the stage's time.
in_chroot() {
    timeout "$(left)" chroot "$root" su -l "$1" -c "cd ~/ringbench && $2"
}

# --- a user without sudo: one install command, exit 2 --------------------------------------------------
quick=$(awk '/<!-- quickstart:begin -->/ { on = 1; next } /<!-- quickstart:end -->/ { on = 0 }
             on && !/^```/ && !/^[[:space:]]*(#|$)/' "$root/root/ringbench/README.md")
[ -n "$quick" ] || fail "README.md has no commands between <!-- quickstart:begin --> and <!-- quickstart:end -->"
first=$(printf '%s\n' "$quick" | head -n 1)
t=$(date +%s)
set +e
in_chroot "$user" "$first" >"$run/user.log" 2>&1
st=$?
set -e
step "as $user (no sudo): $(shown "$first") -> exit $st" "$t"
sed 's/^/  | /' "$run/user.log"
[ "$st" -eq 2 ] || fail "as a user without sudo, '$first' exited $st, wanted 2"
line=$(grep '^as root: apt-get update && apt-get install -y' "$run/user.log" || true)
if [ -z "$line" ] || [ "$(printf '%s\n' "$line" | wc -l)" -ne 1 ]; then
    fail "as a user without sudo: not exactly one 'as root: apt-get update && apt-get install -y ...' line"
fi
[ "$(grep -v 'cuda-toolkit' "$run/user.log" | grep -c 'apt-get install')" -eq 1 ] ||
    fail "as a user without sudo: more than one install command"
# Every package of the required, tests and optional needs, but make's (in the base): one command for all.
want=$(awk '!/^#/ && NF >= 3 && ($2 == "required" || $2 == "tests" || $2 == "optional") && $1 != "make" { print $3 }' \
    "$src/.ci/packages")
for pkg in $want; do
    case " $line " in *" $pkg "*) ;; *) fail "the install command for a user without sudo lacks $pkg: $line" ;; esac
done
say "as $user: exit 2 and one install command naming every missing package"

# --- root: the README's quick start, line by line ---------------------------------------------------------
n=0
while IFS= read -r cmd; do
    n=$((n + 1))
    t=$(date +%s)
    set +e
    in_chroot root "$cmd" 2>&1 | tee "$run/step$n.log" | sed -u 's/^/  | /'
    st=${PIPESTATUS[0]}
    set -e
    step "as root: $(shown "$cmd") -> exit $st" "$t"
    if grep -q 'tests passed' "$run/step$n.log"; then
        say "  $(grep 'tests passed' "$run/step$n.log" | tail -n 1)"
        skipped=$(grep -c '(Skipped)' "$run/step$n.log" || true)
        say "  skipped: $skipped $(grep '(Skipped)' "$run/step$n.log" | sed 's/^[[:space:]]*[0-9]* - //; s/ *(Skipped)//' | tr -s '\n\t ' ' ')"
    fi
    [ "$st" -eq 0 ] || fail "'$cmd' exited $st on a fresh Debian 12 (its output above)"
done <<EOF
$quick
EOF
grep -q 'NO CUDA COMPILER' "$run/step1.log" || fail "make test on a machine without nvcc did not say so"
step "fresh-system stage passed ($n README commands)" "$t_stage"
