#!/bin/sh
# make check-node-exporter: the proof with Debian's own node_exporter.
#
#   textfile.sh CLI LIBRARY ARENAWAIT UNIT_FILE RULES
#
# A hit process of another user (arenawait's 30 pinned threads on the
# affected glibc, as nobody); the service's own command line, read from
# UNIT_FILE, with the unit's capability bounding set and no new
# privileges, writes the textfile into a directory of the test's; prometheus-node-exporter
# serves it on 127.0.0.1 and /metrics must show the hit series.  Then
# the process runs again with LIBRARY preloaded, the textfile is written
# again, and the hit series must be gone and the fine count higher.
# Both scrapes' arenafix lines are printed.  What the alert rules of
# RULES take from node_exporter must be what it serves: the file's
# mtime under a file label their selector matches, and, for a file it
# cannot parse, none of arenafix's series (ArenafixMetricsAbsent).
# The service's scan judges the whole host: the proof runs in a PID
# namespace of its own, where it sees the proof's processes alone, not
# those of a suite that runs beside it.
set -u
cli=$(realpath "$1") lib=$(realpath "$2") arenawait=$(realpath "$3") unit=$4 rules=$5
me=check-node-exporter

skip() {
    echo "$me: SKIP node_exporter proof: $1"
    exit 0
}
fail() {
    echo "$me: FAIL node_exporter proof: $1"
    exit 1
}

[ "$(id -u)" -eq 0 ] || skip "needs root (the service runs as root; inspect --all reads every process)"
if [ -z "${AFX_OWN_PID_NAMESPACE:-}" ]; then
    unshare --pid --fork --mount-proc true 2> /dev/null || skip "no PID namespace of its own (unshare --pid --fork --mount-proc)"
    AFX_OWN_PID_NAMESPACE=1 exec unshare --pid --fork --mount-proc sh "$0" "$@"
fi
command -v prometheus-node-exporter > /dev/null || skip "no prometheus-node-exporter (Debian's package of that name)"
command -v python3 > /dev/null || skip "no python3 to fetch /metrics"
g=${ARENAFIX_AFFECTED_GLIBC%%:*}
[ -n "$g" ] || skip "no affected glibc (set ARENAFIX_AFFECTED_GLIBC)"
loader=
for l in "$g"/ld-linux*.so.*; do
    [ -e "$l" ] && loader=$(realpath "$l") && break
done
[ -n "$loader" ] || fail "no ld.so in $g"

# The service's command line, not a copy of it: its program and its
# directory put where this test has them.
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
dir_prod=/var/lib/prometheus/node-exporter
case $exec_start in
/usr/bin/arenafix\ *$dir_prod/*) ;;
*) fail "$unit: ExecStart is not /usr/bin/arenafix ... $dir_prod/...: $exec_start" ;;
esac
success=" 0 $(sed -n 's/^SuccessExitStatus=//p' "$unit") "
# The unit's CapabilityBoundingSet= as setpriv spells it: what systemd
# leaves the scan (without one, every capability).
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit")
bounding=-all$(printf '%s\n' "$caps" | tr ' ' '\n' | sed -n 's/^CAP_\(.*\)/,+\1/p' | tr -d '\n' | tr '[:upper:]' '[:lower:]')
[ -n "$caps" ] || bounding=+all
command -v setpriv > /dev/null || skip "no setpriv (util-linux)"

tmp=$(mktemp -d /tmp/arenafix-monitor-XXXXXX)
chmod 755 "$tmp"
mkdir "$tmp/textfile"
proc='' exporter=''
cleanup() {
    exec 3>&- 2> /dev/null
    [ -n "$proc" ] && kill "$proc" 2> /dev/null
    [ -n "$exporter" ] && kill "$exporter" 2> /dev/null
    wait 2> /dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# The kernel names a process after the path it was started by: a name
# no other process on the host has.
ln -s "$loader" "$tmp/afxmonhit"

# Start arenawait (LD_PRELOAD=$1, or none), holding it by a fifo; wait
# for its arena count.
start() {
    rm -f "$tmp/hold" "$tmp/proc.out"
    mkfifo "$tmp/hold"
    if [ -n "$1" ]; then
        LD_PRELOAD=$1 setpriv --reuid 65534 --regid 65534 --clear-groups "$tmp/afxmonhit" --library-path "$g" "$arenawait" 30 pinned < "$tmp/hold" > "$tmp/proc.out" &
    else
        setpriv --reuid 65534 --regid 65534 --clear-groups "$tmp/afxmonhit" --library-path "$g" "$arenawait" 30 pinned < "$tmp/hold" > "$tmp/proc.out" &
    fi
    proc=$!
    exec 3> "$tmp/hold"
    # Generous: a loaded host may take long to start it; a hang fails.
    for _ in $(seq 1200); do
        grep -q '^arenas=' "$tmp/proc.out" && return 0
        sleep 0.1
    done
    fail "arenawait never said its arenas in 120 s"
}
stop() {
    exec 3>&-
    wait "$proc"
    proc=
}

# The service's ExecStart, as systemd would run it (no shell: its words;
# the unit's capabilities).
write_textfile() {
    cmd=$(printf '%s\n' "$exec_start" | sed "s#^/usr/bin/arenafix #$cli #; s#$dir_prod/#$tmp/textfile/#")
    # shellcheck disable=SC2086 # the unit's words, split as systemd splits these
    setpriv --bounding-set "$bounding" --no-new-privs $cmd > "$tmp/scan.out" 2> "$tmp/scan.err"
    rc=$?
    case $success in
    *" $rc "*) ;;
    *) fail "the service's command exited $rc, a unit failure: $(cat "$tmp/scan.err")" ;;
    esac
    [ -f "$tmp/textfile/arenafix.prom" ] || fail "no $tmp/textfile/arenafix.prom after: $cmd"
}

scrape() {
    python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
        "http://127.0.0.1:$port/metrics"
}

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start ""
grep -q '^arenas=9$' "$tmp/proc.out" || fail "not the bug's 9 arenas on $g: $(cat "$tmp/proc.out")"
write_textfile
prometheus-node-exporter --web.listen-address="127.0.0.1:$port" --collector.textfile.directory="$tmp/textfile" \
    --collector.disable-defaults --collector.textfile > "$tmp/exporter.log" 2>&1 3>&- &
exporter=$!
up=
# Generous: a loaded host may take long to start it; a hang fails.
for _ in $(seq 1200); do
    scrape > "$tmp/before" 2> /dev/null && up=1 && break
    sleep 0.1
done
[ -n "$up" ] || fail "node_exporter did not serve on 127.0.0.1:$port in 120 s: $(cat "$tmp/exporter.log")"
echo "$me: scraped from node_exporter with the hit process (PID $proc):"
grep '^arenafix_' "$tmp/before" | sed 's/^/    /'
stop

start "$lib"
write_textfile
# The restarted process itself, judged alone: the host-wide counts move
# with whatever else runs on the host meanwhile.
"$cli" inspect --json "$proc" > "$tmp/fixed.json" 2>&1
scrape > "$tmp/after" || fail "the second scrape failed"
echo "$me: scraped from node_exporter after it restarted with libarenafix (PID $proc):"
grep '^arenafix_' "$tmp/after" | sed 's/^/    /'
stop

# A file node_exporter cannot parse (a scan cut short by hand, another
# writer's): what it serves then.
printf 'arenafix_processes{verdict="hit" 1\n' > "$tmp/textfile/arenafix.prom"
scrape > "$tmp/broken" || fail "the scrape of a broken file failed"

fine() {
    sed -n 's/^arenafix_processes{verdict="fine"} //p' "$1"
}
# node_exporter serves the labels sorted by name.
grep -q '^node_textfile_scrape_error 0$' "$tmp/before" || fail "node_exporter could not read the textfile"
grep -q '^arenafix_process_verdict{comm="afxmonhit",unit="[^"]*",verdict="hit"} 1$' "$tmp/before" ||
    fail "no hit series for nobody's afxmonhit in the first scrape (the unit's capabilities: $bounding)"
grep -q '^arenafix_processes{verdict="hit"} [1-9]' "$tmp/before" || fail "no hit process counted"
grep -q "^arenafix_process_verdict{.*comm=\"afxmonhit\"" "$tmp/after" && fail "afxmonhit still has a series after the fix"
grep -Eq '"verdict": ?"fine"' "$tmp/fixed.json" && grep -Eq '"libarenafix": ?true' "$tmp/fixed.json" ||
    fail "the restarted process is not fine with libarenafix: $(cat "$tmp/fixed.json")"
[ -n "$(fine "$tmp/after")" ] || fail "no fine count after the fix"
grep -q '^arenafix_processes_fixed [1-9]' "$tmp/after" || fail "no process counted as fixed by libarenafix"
grep -q '^arenafix_info{glibc_version="[0-9.]*",library="[^"]*",version="[^"]*"} 1$' "$tmp/after" ||
    fail "no arenafix_info with its versions"
grep '^arenafix_' "$tmp/after" | grep -v '^arenafix_info{' | grep 'version=' &&
    fail "a version outside arenafix_info"
# The stale rule's selector of the file, as PromQL's string holds it.
selector=$(sed -n 's/.*node_textfile_mtime_seconds{file=~"\([^"]*\)"}.*/\1/p' "$rules" | sed 's/\\\\/\\/g')
[ -n "$selector" ] || fail "$rules: no node_textfile_mtime_seconds{file=~...} selector"
label=$(sed -n 's/^node_textfile_mtime_seconds{file="\([^"]*\)"} .*/\1/p' "$tmp/after")
[ -n "$label" ] || fail "node_exporter served no node_textfile_mtime_seconds"
printf '%s\n' "$label" | grep -Eqx "$selector" ||
    fail "node_exporter's file label $label is not matched by $rules's selector $selector"
grep -q '^node_textfile_scrape_error 1$' "$tmp/broken" || fail "node_exporter read a broken textfile without an error"
grep -E '^(arenafix_|node_textfile_mtime_seconds)' "$tmp/broken" &&
    fail "node_exporter serves some of a file it cannot parse: ArenafixMetricsAbsent would not see it"
echo "$me: node_exporter serves the file's mtime as file=\"$label\" (the stale rule's $selector), and nothing of a file it cannot parse"
echo "$me: node_exporter proof passed"
