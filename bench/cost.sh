#!/bin/bash
# Instructions arenafix adds, counted by valgrind's callgrind (the same
# from run to run, unlike time): at startup (/bin/true, ls, env with the
# library against an empty preload) and per pthread_create + join in
# each mode against no preload.  docs/benchmarks.md has the numbers.
#
# usage: bench/cost.sh LIB EMPTY_LIB COSTTHREADS [THREADS]
#   LIB          libarenafix.so under test
#   EMPTY_LIB    a preload that does nothing (test/progs/empty.c)
#   COSTTHREADS  the thread program (bench/costthreads.c)
set -eu

lib=$1 empty=$2 prog=$3 threads=${4:-1000}
command -v valgrind >/dev/null || { echo "SKIP: valgrind is not installed"; exit 0; }

# The same login environment for every run (test/cost/login.env, as the
# cost suite): the library reads each variable at startup.
mapfile -t login < <(grep -v '^#' "$(dirname "$0")/../test/cost/login.env")
ir() {
    env -i "${login[@]}" "$@" \
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$prog_cmd" $prog_args 2>&1 \
        >/dev/null | sed -n 's/.*Collected : //p'
}

echo "glibc $(getconf GNU_LIBC_VERSION | cut -d' ' -f2), valgrind $(valgrind --version | sed 's/valgrind-//')"
echo
echo "startup, instructions (callgrind Ir):"
printf '%-14s %12s %12s %8s\n' command "empty .so" arenafix ratio
for cmd in /bin/true "/bin/ls /" /usr/bin/env; do
    prog_cmd=${cmd%% *} prog_args=
    [ "$cmd" = "$prog_cmd" ] || prog_args=${cmd#* }
    base=$(ir LD_PRELOAD="$empty") shim=$(ir LD_PRELOAD="$lib")
    printf '%-14s %12s %12s %8s\n' "$cmd" "$base" "$shim" \
        "$(awk -v a="$shim" -v b="$base" 'BEGIN { printf "%.3f", a / b }')"
done

echo
echo "per pthread_create + join ($threads threads, one at a time), instructions"
echo "per thread beyond no preload (callgrind Ir, (run of $threads - run of 0) / $threads):"
printf '%-10s %12s %12s\n' mode unpinned pinned
prog_cmd=$prog
per_thread() {  # env assignments...
    prog_args="0 unpinned"; zero=$(ir "$@")
    for kind in unpinned pinned; do
        prog_args="$threads $kind"; n=$(ir "$@")
        echo $(( (n - zero) / threads ))
    done
}
set -- $(per_thread)
none_u=$1 none_p=$2
printf '%-10s %12s %12s\n' "none" "$none_u" "$none_p"
for mode in off mallopt touch both; do
    set -- $(per_thread LD_PRELOAD="$lib" ARENAFIX_MODE=$mode)
    printf '%-10s %12s %12s\n' "$mode" "+$(( $1 - none_u ))" "+$(( $2 - none_p ))"
done
