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
avg_run() {  # kind env assignments...: (run of N - run of 0) / N
    local kind=$1; shift
    prog_args="0 $kind"; local zero; zero=$(ir "$@")
    prog_args="$threads $kind"; local n; n=$(ir "$@")
    echo $(( (n - zero) / threads ))
}
for kind in unpinned pinned; do eval "none_$kind=$(avg_run $kind)"; done
printf '%-10s %12s %12s\n' "none" "$none_unpinned" "$none_pinned"
for mode in off mallopt touch both; do
    u=$(avg_run unpinned LD_PRELOAD="$lib" ARENAFIX_MODE=$mode)
    p=$(avg_run pinned LD_PRELOAD="$lib" ARENAFIX_MODE=$mode)
    printf '%-10s %12s %12s\n' "$mode" "+$(( u - none_unpinned ))" "+$(( p - none_pinned ))"
done

# The creating thread alone: callgrind's inclusive count of costthreads'
# afx_cost_create (the interposer, glibc's create, the new thread's
# thread-local block), the same from run to run, unlike the whole run's.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cir() {  # count kind env assignments...
    local count=$1 kind=$2; shift 2
    env -i "${login[@]}" "$@" valgrind --tool=callgrind --callgrind-out-file="$tmp/out" \
        "$prog" "$count" "$kind" >/dev/null 2>&1
    callgrind_annotate --inclusive=yes "$tmp/out" | awk '/:afx_cost_create / { gsub(",", "", $1); print $1; exit }'
}
# Runs of N and 3N creations: settled is what each creation past the
# first N adds (the limit is settled within 8 x arena_test creations),
# the window what the first N add beyond N settled ones, in all.
creations() {  # kind env assignments...
    local kind=$1; shift
    local a b
    a=$(cir "$threads" "$kind" "$@") b=$(cir $((3 * threads)) "$kind" "$@")
    echo "$(( (b - a) / (2 * threads) )) $(( a - (b - a) / 2 ))"
}
echo
echo "the creating thread's pthread_create alone (callgrind Ir, inclusive), beyond no preload:"
echo "once settled, per creation ((creations of $((3 * threads)) - of $threads) / $((2 * threads))), and the"
echo "decision window (what the first $threads creations add beyond $threads settled ones, in all)"
printf '%-10s %12s %12s %14s %14s\n' mode settled-unpin settled-pin window-unpin window-pinned
set -- $(creations unpinned) $(creations pinned)
nsu=$1 nwu=$2 nsp=$3 nwp=$4
printf '%-10s %12s %12s %14s %14s\n' none "$nsu" "$nsp" "$nwu" "$nwp"
for mode in off mallopt touch both; do
    set -- $(creations unpinned LD_PRELOAD="$lib" ARENAFIX_MODE=$mode) \
           $(creations pinned LD_PRELOAD="$lib" ARENAFIX_MODE=$mode)
    printf '%-10s %12s %12s %14s %14s\n' "$mode" "+$(( $1 - nsu ))" "+$(( $3 - nsp ))" \
        "+$(( $2 - nwu ))" "+$(( $4 - nwp ))"
done
