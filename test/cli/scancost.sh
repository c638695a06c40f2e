#!/bin/sh
# scancost.sh CLI FLAT DEPTH STILLCLOCK: in a PID namespace of its own (nothing of the
# host's is scanned), FLAT idle processes (sleep, a dynamic glibc program
# with an empty environment) and a chain of DEPTH shells, each the parent
# of the next, in a mount namespace of their own (as a container's
# processes are, whose way up to the host's is walked); then
# `arenafix inspect --all --json` under callgrind and under strace.  Prints
#     processes=P instructions=I status_reads=S most_reads_of_one=M
# P the processes the scan saw, I the instructions callgrind counted in it,
# S its opens of a /proc/PID/status, M the most of one process's.  As
# root (unshare); exits 77 where it cannot run, saying why.  The scan
# under callgrind has STILLCLOCK preloaded (test/cli/stillclock.c): its
# deadlines (a process's read, a user's share) never pass however slowly
# it runs, and what is counted is the whole scan.  A scan that fails
# (exit 1, 2, or a signal) fails this, with its output.
set -u
if [ "${1:-}" = nest ]; then
    # nest N: N shells down, the last one sleeping.
    n=$2
    if [ "$n" -gt 0 ]; then sh "$0" nest $((n - 1)) & wait; else exec sleep 1000; fi
    exit 0
fi
cli=$1 flat=$2 depth=$3 stillclock=$4
for p in unshare valgrind strace; do
    command -v $p >/dev/null || { echo "no $p"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "not root (unshare -p)"; exit 77; }
out=$(mktemp -d /tmp/arenafix-scancost-XXXXXX) || exit 1
trap 'rm -rf "$out"' EXIT
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin unshare -p -f --mount-proc sh -c '
    script=$1 cli=$2 flat=$3 depth=$4 out=$5 stillclock=$6
    i=0
    while [ $i -lt "$flat" ]; do sleep 1000 & i=$((i + 1)); done
    [ "$depth" -eq 0 ] || unshare -m sh "$script" nest "$depth" &
    # All of them up: this shell, the sleepers, the chain (unshare execs
    # its shell), its sleeper.  A hang is the caller'"'"'s timeout.
    want=$((1 + flat + (depth > 0 ? depth + 2 : 0)))
    while [ "$(ls -d /proc/[0-9]* | wc -l)" -lt "$want" ]; do sleep 0.1; done
    LD_PRELOAD=$stillclock valgrind --tool=callgrind --callgrind-out-file=/dev/null "$cli" inspect --all --json \
        >"$out/scan.json" 2>"$out/callgrind.err"
    rc=$?
    case $rc in
    1 | 2 | 1[0-9][0-9]) echo "inspect --all --json under callgrind exited $rc: $(head -c 1500 "$out/callgrind.err")"
                         exit 1 ;;
    esac
    LD_PRELOAD=$stillclock strace -f -e trace=open,openat -o "$out/strace" "$cli" inspect --all --json >/dev/null 2>"$out/strace.err"
    rc=$?
    case $rc in
    1 | 2 | 1[0-9][0-9]) echo "inspect --all --json under strace exited $rc: $(head -c 1500 "$out/strace.err")"
                         exit 1 ;;
    esac
    procs=$(sed -n "s/.*\"processes\":\([0-9][0-9]*\).*/\1/p" "$out/scan.json")
    ins=$(sed -n "s/.*Collected : *\([0-9]*\).*/\1/p" "$out/callgrind.err")
    grep -o "\"/proc/[0-9]*/status\"" "$out/strace" | sort | uniq -c | sort -rn > "$out/reads"
    reads=$(awk "{ s += \$1 } END { print s + 0 }" "$out/reads")
    most=$(awk "NR == 1 { print \$1 } END { if (NR == 0) print 0 }" "$out/reads")
    echo "processes=$procs instructions=$ins status_reads=$reads most_reads_of_one=$most"
' sh "$0" "$cli" "$flat" "$depth" "$out" "$stillclock"
