#!/bin/bash
# make check-hard: the hardening properties of docs/hardening.md, one
# line each (PASS, FAIL or SKIP with the reason), then a count.  Each
# property runs in its own subshell; its output goes to
# $HARD/logs/NAME.log and is shown when it fails.
#
# From hard.mk: HARD (build dir of this suite), FUZZ_BIN, ARENAFIX_TESTLIB,
# ARENAFIX_AFFECTED_GLIBC (may be empty; of a list DIR:DIR..., the first),
# ASAN_RT, TSAN_RT, INTEG_BIN, TEST_BIN.  HARD_ONLY=REGEX runs only the
# properties whose name matches.
# FUZZ_RUNS: executions per fuzz target.

set -u
: "${HARD:?run through make check-hard}"
LIB=${ARENAFIX_TESTLIB:?}
AFFECTED=${ARENAFIX_AFFECTED_GLIBC:-}
AFFECTED=${AFFECTED%%:*}
HARD_ONLY=${HARD_ONLY:-}
FUZZ_RUNS=${FUZZ_RUNS:-400000}
LOGS=$HARD/logs
P=$HARD/bin
mkdir -p "$LOGS"
rm -f "$LOGS"/*.log "$LOGS"/fuzz-*.runs
unset LD_PRELOAD GLIBC_TUNABLES MALLOC_ARENA_MAX ARENAFIX_MODE ARENAFIX_ARENA_MAX \
      ARENAFIX_VERBOSE ARENAFIX_EAGER

npass=0 nfail=0 nskip=0
ONLINE=$(getconf _NPROCESSORS_ONLN)
DEFAULT_MAX=$((8 * ONLINE))     # the library's M_ARENA_MAX here (64-bit)
THREADS=30
# Arenas 30 pinned threads end up with when the limit is right: the
# fixed glibc's rule (common/arenarule.h).
FIXED_ARENAS=$("$TEST_BIN/fixedarenas" $THREADS "$ONLINE")

# ---- helpers (used inside properties) ---------------------------------

die() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
# await WHAT CMD...: until CMD succeeds, every 0.1 s; a process that is
# slow to start on a loaded machine is waited for (up to 120 s, a hang),
# never judged before it is there.
await() {
    local what=$1 i
    shift
    for i in $(seq 1200); do "$@" && return 0; sleep 0.1; done
    die "$what: not after 120 s"
}

# t CMD...: every command is bounded, so a hang is a failure, not a stall.
t() { timeout -k 5 "${LIMIT:-120}" "$@"; }

# "${AFF[@]}" CMD...: run CMD under the affected glibc.
AFF=("$AFFECTED/ld-linux-x86-64.so.2" --library-path "$AFFECTED")
have_affected() { [ -n "$AFFECTED" ] && [ -e "$AFFECTED/libc.so.6" ]; }

# Lines of FILE the shim wrote.
afx_lines() { grep -c '^arenafix: ' "$1"; }
# "arenas=N" of FILE.
arenas_of() { sed -n 's/^arenas=\([0-9]*\)$/\1/p' "$1"; }

# run OUT ERR CMD...: run with stdout to OUT, stderr to ERR; rc in $rc.
run() { local out=$1 err=$2; shift 2; t "$@" >"$out" 2>"$err"; rc=$?; }

# Fail with the stderr of the last run when rc is not 0.
need_rc0() { [ "$rc" -eq 0 ] || { cat "$2" 2>/dev/null; die "$1: exit status $rc"; }; }

# The decision line must be the default limit from the online CPUs.
need_default() {
    grep -q "arena_max=$DEFAULT_MAX (8 x $ONLINE CPUs" "$1" || { cat "$1"; die "$2: not the default arena limit"; }
}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/arenafix-hard.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
chmod 755 "$TMP"

property() {
    local name=$1
    shift
    if [ -n "$HARD_ONLY" ] && ! [[ $name =~ $HARD_ONLY ]]; then
        return
    fi
    local log=$LOGS/$name.log start=$SECONDS
    (cd "$TMP" && "$@") >"$log" 2>&1 </dev/null
    local rc=$? took=$((SECONDS - start))
    if [ $rc -eq 0 ]; then
        npass=$((npass + 1))
        printf 'PASS  %-28s %3ss\n' "$name" "$took"
    elif [ $rc -eq 77 ]; then
        nskip=$((nskip + 1))
        printf 'SKIP  %-28s %s\n' "$name" "$(sed -n 's/^SKIP: //p' "$log" | tail -1)"
    else
        nfail=$((nfail + 1))
        printf 'FAIL  %-28s %3ss  (%s)\n' "$name" "$took" "$log"
        tail -n 25 "$log" | sed 's/^/      | /'
    fi
}

# ---- sanitizers -------------------------------------------------------

# The unit tests of the pure code, built with ASan+UBSan.
p_asan_unit() {
    [ -x "$HARD/asan/unit" ] || skip "no unit tests in test/unit"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        t "$HARD/asan/unit" || die "unit tests under ASan+UBSan"
}

# ASan+UBSan shim and programs.  ASan's allocator is not glibc's, so the
# shim stands down; what runs is activation, the settings, the readers,
# the log and every interposer's pass-through.
p_asan_shim() {
    local pre="$ASAN_RT:$HARD/asan/libarenafix.so"
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    export CHURN_MEMORY_UNCHECKED=1   # ASan's quarantine grows by design
    for cmd in "pinwork $THREADS pin" "pinwork $THREADS attr" "semantics" "churn 3000 3000 attr" \
               "race preload 16"; do
        for mode in both mallopt; do
            # shellcheck disable=SC2086
            run out err env LD_PRELOAD="$pre" ARENAFIX_MODE=$mode ARENAFIX_VERBOSE=1 $HARD/asan/$cmd
            need_rc0 "$cmd (mode $mode)" err
            ! grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error' err || die "$cmd: sanitizer report"
            grep -q "standing down: malloc is not glibc's" err || { cat err; die "$cmd: the shim did not run"; }
        done
    done
}

# UBSan shim (aborts at the first report) in plain programs: every path,
# trampoline and create-then-pin included.
p_ubsan_shim() {
    local lib=$HARD/ubsan/libarenafix.so
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    for mode in both touch mallopt; do
        for cmd in "pinwork $THREADS pin" "pinwork $THREADS attr" "pinwork $THREADS none" \
                   "churn 3000 3000" "churn 3000 3000 attr" "race preload 16" "faults exhaust" \
                   "faults exhaust attr" "semantics"; do
            # shellcheck disable=SC2086
            run out err env LD_PRELOAD="$lib" ARENAFIX_MODE=$mode $P/$cmd
            need_rc0 "$cmd (mode $mode)" err
            ! grep 'runtime error' err || die "$cmd: UBSan report"
        done
    done
    if have_affected; then
        for how in pin attr; do
            run out err env LD_PRELOAD="$lib" "${AFF[@]}" "$P/pinwork" $THREADS $how
            need_rc0 "pinwork $how, affected glibc" err
            [ "$(arenas_of out)" = "$FIXED_ARENAS" ] || die "affected glibc, $how: $(cat out), want $FIXED_ARENAS"
        done
    fi
}

# The project's integration tests, pointed at the UBSan shim.  Not the
# cost suite: it counts the shim's system calls, and the UBSan runtime
# makes its own.
p_ubsan_integration() {
    [ -x "${INTEG_BIN:-}" ] || skip "no integration test binary (make check-shim builds it)"
    local suite failed=0
    # On the first affected glibc: the sanitizer's runtime needs this
    # system's libstdc++, which the releases before 2.36 cannot load.
    for suite in arenas standdown semantics; do
        CK_RUN_SUITE=$suite UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
            ARENAFIX_TESTLIB=$HARD/ubsan/libarenafix.so AFX_TEST_BIN=$TEST_BIN LIMIT=300 \
            ARENAFIX_AFFECTED_GLIBC=$AFFECTED t "$INTEG_BIN" && continue
        CK_RUN_SUITE=$suite AFX_TEST_BIN=$TEST_BIN LIMIT=300 ARENAFIX_AFFECTED_GLIBC=$AFFECTED \
            t "$INTEG_BIN" >/dev/null 2>&1 \
            || { echo "suite $suite fails without sanitizers too"; continue; }
        failed=1
    done
    [ $failed -eq 0 ] || die "integration tests fail with the UBSan shim only"
}

# TSan: many threads make the first calls into a TSan-built shim at once.
# (TSan's allocator makes the shim stand down, so the trampoline is
# checked by DRD below.)
p_tsan_activation() {
    export TSAN_OPTIONS=halt_on_error=1:exitcode=66:report_signal_unsafe=0
    for i in 1 2 3; do
        run out err env ARENAFIX_VERBOSE=1 "$HARD/tsan/race" dlopen "$HARD/tsan/libarenafix.so" 16
        need_rc0 "race $i" err
        ! grep -q 'ThreadSanitizer' err || { cat err; die "TSan report"; }
        [ "$(afx_lines err)" -eq 1 ] || { cat err; die "activation did not happen exactly once"; }
    done
}

# Signal handlers that call the affinity functions (async-signal-safe in
# glibc) over the first pthread_create and mallocs, under the sanitizer
# builds of the shim: never a hang (each run is bounded), never a report.
p_signal_flood() {
    local runs=20
    # A SIGALRM 100 us after each handler, not the fidelity suite's 20:
    # the handler's two affinity calls run instrumented here, several
    # times slower, and 100 us still lands a signal every few calls.
    # Natively, test_fidelity.c floods at 20.
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
    for mode in mallopt touch both; do
        for ((i = 0; i < runs; i++)); do
            LIMIT=20 run out err env LD_PRELOAD="$HARD/ubsan/libarenafix.so" ARENAFIX_MODE=$mode \
                "$TEST_BIN/sigflood" 20 100
            need_rc0 "ubsan, mode $mode, run $i" err
            ! grep 'runtime error' err || die "mode $mode: UBSan report"
            LIMIT=20 run out err env LD_PRELOAD="$ASAN_RT:$HARD/asan/libarenafix.so" \
                ARENAFIX_MODE=$mode "$TEST_BIN/sigflood" 20 100
            need_rc0 "asan, mode $mode, run $i" err
            ! grep -E 'ERROR: AddressSanitizer|runtime error' err || die "mode $mode: ASan report"
            if have_affected; then
                LIMIT=20 run out err env LD_PRELOAD="$HARD/ubsan/libarenafix.so" ARENAFIX_MODE=$mode \
                    "${AFF[@]}" "$TEST_BIN/sigflood" 20 100
                need_rc0 "ubsan on the affected glibc, mode $mode, run $i" err
            fi
        done
    done
    echo "$((runs * 3)) runs per shim, no hang, no report"
}

# DRD on the trampoline and create-then-pin handshakes.
p_drd_trampoline() {
    command -v valgrind >/dev/null || skip "valgrind not installed"
    # DRD handles a few hundred threads over a whole run: small counts.
    export CHURN_MEMORY_UNCHECKED=1
    for cmd in "churn 100 100" "churn 100 100 attr" "pinwork 12 attr" "pinwork 12 pin"; do
        # shellcheck disable=SC2086
        run out err env LD_PRELOAD="$LIB" ARENAFIX_MODE=both LIMIT=300 \
            valgrind --tool=drd --error-exitcode=99 --suppressions="$HARD_SRC/valgrind.supp" $P/$cmd
        need_rc0 "drd $cmd" err
        grep -q 'ERROR SUMMARY: 0 errors' err || { cat err; die "drd $cmd: errors"; }
    done
}

# Memcheck on the children: no error, no leak.
p_memcheck() {
    command -v valgrind >/dev/null || skip "valgrind not installed"
    export CHURN_MEMORY_UNCHECKED=1   # memcheck's own leak check applies
    for cmd in "pinwork $THREADS pin" "pinwork $THREADS attr" "semantics" "churn 300 300 attr" \
               "race preload 8" "faults late $LIB 4"; do
        # shellcheck disable=SC2086
        run out err env LD_PRELOAD="$LIB" ARENAFIX_MODE=both LIMIT=300 \
            valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect \
            --show-leak-kinds=definite,indirect --error-exitcode=99 \
            --suppressions="$HARD_SRC/valgrind.supp" $P/$cmd
        need_rc0 "memcheck $cmd" err
        grep -q 'ERROR SUMMARY: 0 errors' err || { cat err; die "memcheck $cmd: errors"; }
    done
}

# ---- fuzzing ------------------------------------------------------------

FUZZ_TOTAL=0
p_fuzz() {
    local target=$1 work=$HARD/fuzz-work/$1 max_len=()
    [ -x "$FUZZ_BIN/fuzz_$target" ] || skip "fuzz_$target not built (needs clang with libFuzzer)"
    # maps: past the line buffer and PATH_MAX-byte paths (hard.mk).
    [ "$target" = maps ] && max_len=(-max_len="${FUZZ_MAPS_MAX_LEN:-40000}")
    mkdir -p "$work" "$HARD/fuzz-artifacts"
    LIMIT=300 t "$FUZZ_BIN/fuzz_$target" -runs="$FUZZ_RUNS" -max_total_time=60 -print_final_stats=1 \
        "${max_len[@]}" \
        -artifact_prefix="$HARD/fuzz-artifacts/$target-" "$work" "$HARD_SRC/../fuzz/corpus/$target" \
        >"$LOGS/fuzz-$target.out" 2>&1
    rc=$?
    local runs
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$LOGS/fuzz-$target.out")
    echo "executions: ${runs:-0}"
    echo "${runs:-0}" >"$LOGS/fuzz-$target.runs"
    [ $rc -eq 0 ] || { tail -40 "$LOGS/fuzz-$target.out"; die "fuzz_$target found a failing input"; }
}

p_fuzz_total() {
    local total=0 n
    for f in "$LOGS"/fuzz-*.runs; do
        [ -e "$f" ] || skip "no fuzz target ran"
        n=$(cat "$f")
        total=$((total + n))
    done
    echo "total executions: $total"
    [ $total -ge 1000000 ] || die "only $total executions (want >= 1000000)"
}

# ---- concurrency ----------------------------------------------------------

# Racing first calls decide once: one decision line, every call works.
p_race_once() {
    for i in 1 2 3 4 5; do
        for mode in both mallopt; do
            run out err env LD_PRELOAD="$LIB" ARENAFIX_MODE=$mode ARENAFIX_VERBOSE=1 "$P/race" preload 32
            need_rc0 "race $i" err
            # One decision, explained once; the racing threads were started
            # behind arenafix's back, and their arenas, counted as they
            # grow, may then make it stand down, in a line of its own.
            local decisions
            decisions=$(grep -c '^arenafix: race\[[0-9]*\]: glibc ' err)
            [ "$decisions" -eq 1 ] && [ "$(afx_lines err)" -le 2 ] \
                || { cat err; die "$decisions decisions in $(afx_lines err) lines, want 1"; }
            [ "$(afx_lines err)" -eq 1 ] || grep -q '^arenafix: race\[[0-9]*\]: standing down: too late' err \
                || { cat err; die "a second line that is not the stand-down"; }
        done
    done
}

# 100,000 threads joined and 100,000 detached: memory and fds flat.
p_churn() {
    LIMIT=300 run out err env LD_PRELOAD="$LIB" ARENAFIX_MODE=both "$P/churn" 100000 100000
    cat out
    need_rc0 "trampoline path" err
    LIMIT=300 run out err env LD_PRELOAD="$LIB" ARENAFIX_MODE=both "$P/churn" 20000 20000 attr
    cat out
    need_rc0 "create-then-pin path" err
}

# The transcript of semantics is the same with and without the shim.
p_semantics() {
    run base err "$P/semantics"
    need_rc0 "without the shim" err
    for mode in mallopt touch both; do
        run out err env LD_PRELOAD="$LIB" ARENAFIX_MODE=$mode "$P/semantics"
        need_rc0 "mode $mode" err
        diff base out || die "mode $mode: behaves differently"
    done
    if have_affected; then
        run out err env LD_PRELOAD="$LIB" ARENAFIX_MODE=both "${AFF[@]}" "$P/semantics"
        need_rc0 "affected glibc" err
        diff base out || die "affected glibc: behaves differently"
    fi
}

# ---- faults -----------------------------------------------------------------

can_unshare() { [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; }

# In a private mount namespace, hide what $1 names, then run pinwork
# verbose; the decision must name $2 as the source of the CPU count.
hidden() {
    local hide=$1 source=$2 mounts=""
    can_unshare || skip "needs root and unshare -m"
    for d in $hide; do mounts="$mounts mount -t tmpfs none $d &&"; done
    for glibc in system affected; do
        local cmd="$P/pinwork $THREADS pin"
        if [ $glibc = affected ]; then
            have_affected || continue
            cmd="$AFFECTED/ld-linux-x86-64.so.2 --library-path $AFFECTED $cmd"
        fi
        run out err unshare -m sh -c "$mounts LD_PRELOAD=$LIB ARENAFIX_VERBOSE=1 exec $cmd"
        need_rc0 "$glibc glibc" err
        [ "$(afx_lines err)" -eq 1 ] || { cat err; die "want one line"; }
        grep -q "CPUs from $source" err || { cat err; die "CPU count not from $source"; }
        if [ $glibc = affected ] && [ "$(arenas_of out)" != "$FIXED_ARENAS" ]; then
            die "affected glibc: $(cat out), want $FIXED_ARENAS"
        fi
    done
}
p_no_sys() { hidden /sys /proc/stat; }
p_no_proc() { hidden /proc /sys/devices/system/cpu/online; }
# Nothing readable: the widest mask known (the main thread's here), never
# the pinned caller's alone.
p_no_sys_proc() { hidden "/sys /proc" "the widest affinity known"; }

# open() and openat() denied by a seccomp filter.
p_open_denied() {
    for mode in both mallopt; do
        run out err env LD_PRELOAD="$LIB" ARENAFIX_MODE=$mode ARENAFIX_VERBOSE=1 "$P/faults" noopen 8
        need_rc0 "mode $mode" err
        # The count was read before main, before the program denied
        # itself open: the file's, not a fallback.
        grep -q "CPUs from /sys/devices/system/cpu/online" err || { cat err; die "the CPUs online not read before main"; }
    done
}

# RLIMIT_NPROC: the same threads and the same EAGAIN as without the shim.
NPROC_UID=64123     # a uid no one uses: only our threads count
p_nproc() {
    [ "$(id -u)" = 0 ] || skip "needs root to switch to an unprivileged uid"
    # The unprivileged uid may not reach the build tree (a checkout under
    # a private directory): run copies from the world-readable $TMP.
    local prog=$TMP/nproc-faults lib=$TMP/nproc-libarenafix.so
    install -m 755 "$P/faults" "$prog" && install -m 644 "$LIB" "$lib" \
        || die "cannot copy the test program and library to $TMP"
    for how in plain attr; do
        local as=(setpriv --reuid=$NPROC_UID --regid=$NPROC_UID --clear-groups)
        run base err "${as[@]}" "$prog" nproc 20 $how
        need_rc0 "without the shim, $how" err
        grep -q 'error=EAGAIN' base || { cat base err; die "no EAGAIN without the shim"; }
        for mode in mallopt both; do
            run out err "${as[@]}" env LD_PRELOAD="$lib" ARENAFIX_MODE=$mode "$prog" nproc 20 $how
            need_rc0 "mode $mode, $how" err
            diff base out || die "mode $mode, $how: differs from the run without the shim"
        done
    done
}

# No memory left for the trampoline's record: the thread is still made.
p_oom_trampoline() {
    for how in plain attr; do
        for mode in both touch; do
            run out err env LD_PRELOAD="$LIB" ARENAFIX_MODE=$mode "$P/faults" exhaust $how
            need_rc0 "mode $mode, $how" err
            grep -q 'thread created with malloc failing' out || { cat out err; die "mode $mode, $how"; }
        done
    done
}

# dlopen'ed into a threaded process: says it is too late, changes nothing.
p_dlopen_late() {
    local env=(ARENAFIX_VERBOSE=1 ARENAFIX_ARENA_MAX=1 ARENAFIX_MODE=both)
    # Control: preloaded, the same settings do change the arena count.
    run out err env "${env[@]}" LD_PRELOAD="$LIB" "$P/faults" late "$LIB" 4
    need_rc0 "preloaded" err
    [ "$(arenas_of out)" = 1 ] || die "control: ARENAFIX_ARENA_MAX=1 preloaded gave $(cat out)"
    # Threads that run but have not malloc'd: glibc has fixed nothing
    # yet, so a late shim still applies (through its own entry point).
    run out err env "${env[@]}" "$P/faults" late "$LIB" 4
    need_rc0 "dlopen" err
    cat err
    [ "$(afx_lines err)" -eq 1 ] || die "want exactly one line from the shim"
    grep -q 'too late' err && die "no arena beyond main's existed: not too late"
    [ "$(arenas_of out)" = 1 ] || die "the limit was not applied: $(cat out)"
    # More than arena_test + 1 arenas: glibc has fixed its limit.
    run out err env "${env[@]}" "$P/faults" late "$LIB" 12 malloced
    need_rc0 "dlopen after mallocs" err
    cat err
    [ "$(afx_lines err)" -eq 1 ] || die "want exactly one line from the shim"
    sed '/^faults: dlopen returned/q' err | grep -qE '^arenafix: .*too late' \
        || die "the shim did not say it was too late when it was loaded"
    [ "$(arenas_of out)" -gt 1 ] || die "the shim changed the arena limit: $(cat out)"
}

# ---- hostile input ----------------------------------------------------------

long_string() { head -c "$1" /dev/zero | tr '\0' "$2"; }

# Every ARENAFIX_* variable with values that are not valid: one warning
# naming it, the defaults, no crash.
p_hostile_vars() {
    local vals=("garbage" "-1" "-0" "99999999999999999999999999999" "4294967297" " 4" "4 " "0x10"
                "1e3" "+4" $'\t' $'\x01\xff' "BOTH" "touch " "$(long_string 100000 9)"
                "$(long_string 100000 a)")
    for var in ARENAFIX_MODE ARENAFIX_ARENA_MAX ARENAFIX_VERBOSE ARENAFIX_EAGER; do
        for v in "${vals[@]}" "0" "1000001"; do
            case "$var=$v" in
            ARENAFIX_VERBOSE=0 | ARENAFIX_EAGER=0) continue ;;
            esac
            local verbose=ARENAFIX_VERBOSE=1
            [ $var = ARENAFIX_VERBOSE ] && verbose=
            run out err env $verbose "$var=$v" LD_PRELOAD="$LIB" "$P/pinwork" 4 pin
            need_rc0 "$var=${v:0:20}" err
            [ "$(grep -c "^arenafix: [^ ]*: ignoring $var=" err)" -eq 1 ] || { cat err; die "$var=${v:0:20}: want one warning"; }
            if [ -n "$verbose" ]; then
                [ "$(afx_lines err)" -eq 2 ] || { cat err; die "$var=${v:0:20}: want warning + decision"; }
                need_default err "$var=${v:0:20}"
            else
                [ "$(afx_lines err)" -eq 1 ] || { cat err; die "$var=${v:0:20}: want one line"; }
            fi
        done
        run out err env ARENAFIX_VERBOSE=1 "$var=" LD_PRELOAD="$LIB" "$P/pinwork" 4 pin
        need_rc0 "$var empty" err
        [ "$(grep -c 'ignoring' err)" -eq 0 ] || die "$var empty: an empty value is unset, not wrong"
    done
    # All at once: still one warning.
    run out err env ARENAFIX_MODE=x ARENAFIX_ARENA_MAX=-5 ARENAFIX_VERBOSE=y ARENAFIX_EAGER=z \
        LD_PRELOAD="$LIB" "$P/pinwork" 4 pin
    need_rc0 "all garbage" err
    [ "$(afx_lines err)" -le 1 ] || { cat err; die "all garbage: more than one warning"; }
}

# GLIBC_TUNABLES and MALLOC_ARENA_MAX nobody would write: the shim takes
# them as glibc does (stands down only for a value glibc applies).
p_hostile_tunables() {
    local k=glibc.malloc.arena_max
    local -a cases=(
        "GLIBC_TUNABLES=$(long_string 100000 :)|default"
        "GLIBC_TUNABLES=$(long_string 100000 =)|default"
        "GLIBC_TUNABLES=$k=|default"
        "GLIBC_TUNABLES=$k=0|default"
        "GLIBC_TUNABLES=$k=-1|down"
        "GLIBC_TUNABLES=$k=99999999999999999999999999|down"
        "GLIBC_TUNABLES=$k=0x|default"
        "GLIBC_TUNABLES=$k$k=4|default"
        "GLIBC_TUNABLES=:::$k=4:::|down"
        "GLIBC_TUNABLES=$k=$k=4|down"
        "GLIBC_TUNABLES=$(for i in $(seq 2000); do printf '%s=%d:' $k $i; done)|down"
        "GLIBC_TUNABLES=$k=4:$k=junk|down"
        $'GLIBC_TUNABLES=\x01\x02\xff=\xfe|default'
        "MALLOC_ARENA_MAX=|default"
        "MALLOC_ARENA_MAX=-1|down"
        "MALLOC_ARENA_MAX=0|default"
        "MALLOC_ARENA_MAX=99999999999999999999999|down"
        "MALLOC_ARENA_MAX=$(long_string 100000 7)|down"
        "MALLOC_ARENA_MAX=2abc|down"
    )
    for c in "${cases[@]}"; do
        local setting=${c%|*} want=${c##*|}
        run out err env "$setting" ARENAFIX_VERBOSE=1 LD_PRELOAD="$LIB" "$P/pinwork" 4 pin
        need_rc0 "${setting:0:40}" err
        [ "$(afx_lines err)" -eq 1 ] || { cat err; die "${setting:0:40}: want one line"; }
        if [ "$want" = down ]; then
            grep -q 'standing down' err || { cat err; die "${setting:0:40}: glibc applies it, the shim must stand down"; }
        else
            need_default err "${setting:0:40}"
        fi
    done
}

# sysfs cpulists bind-mounted over /sys/devices/system/cpu/online.
p_hostile_cpulist() {
    can_unshare || skip "needs root and unshare -m"
    local f=$TMP/online
    check_list() {     # $1: what, $2: expected text in the decision line
        run out err unshare -m sh -c "mount --bind $f /sys/devices/system/cpu/online &&
            LD_PRELOAD=$LIB ARENAFIX_VERBOSE=1 exec $P/pinwork 4 pin"
        need_rc0 "$1" err
        [ "$(afx_lines err)" -eq 1 ] || { cat err; die "$1: want one line"; }
        grep -q "$2" err || { cat err; die "$1: want '$2'"; }
    }
    echo "0-8191" >"$f"
    check_list "8192 CPUs as a range" "arena_max=65536 (8 x 8192 CPUs from /sys"
    seq -s, 0 8191 >"$f"
    check_list "8192 CPUs one by one" "arena_max=65536 (8 x 8192 CPUs from /sys"
    for bad in "0-99999999999" "garbage" "" "3-1" "$(yes 0-4194303 | head -600 | paste -sd,)" \
               "$(long_string 200000 ,)"; do
        printf '%s\n' "$bad" >"$f"
        check_list "malformed '${bad:0:20}'" "arena_max=$DEFAULT_MAX (8 x $ONLINE CPUs from /proc/stat"
    done
}

# A setuid program run by an unprivileged user ignores ARENAFIX_*.
p_secure() {
    [ "$(id -u)" = 0 ] || skip "needs root to make a setuid binary"
    local prog=$TMP/secure env=(ARENAFIX_VERBOSE=1 ARENAFIX_ARENA_MAX=1 ARENAFIX_MODE=both)
    # Linked to the library under test by its path: a setuid program
    # ignores LD_PRELOAD paths, but loads what it was linked with.
    ${CC:-cc} -std=gnu11 -D_GNU_SOURCE -O1 -pthread -o "$prog" "$HARD_SRC/progs/pinwork.c" -Wl,--no-as-needed "$LIB" \
        || die "cannot build the setuid test program"
    chown root:root "$prog"
    chmod 4755 "$prog"
    # Control: not secure, the variables apply (one arena, a log line).
    run out err env "${env[@]}" "$prog" 8 none
    need_rc0 "as root" err
    [ "$(arenas_of out)" = 1 ] && [ "$(afx_lines err)" -eq 1 ] || { cat out err; die "control: variables not applied"; }
    run out err setpriv --reuid=$NPROC_UID --regid=$NPROC_UID --clear-groups env "${env[@]}" "$prog" 8 none
    need_rc0 "setuid" err
    grep -q '^arenafix' err && { cat err; die "setuid: ARENAFIX_VERBOSE was honoured"; }
    [ "$(arenas_of out)" -gt 1 ] || die "setuid: ARENAFIX_ARENA_MAX was honoured ($(cat out))"
}

# ---- neighbours -------------------------------------------------------------

# With the other library at $1, before and after the shim: the program
# works and the fix still applies (on the affected glibc: the arena count).
with_neighbour() {
    local other=$1 check=${2:-}
    for order in "$other:$LIB" "$LIB:$other"; do
        for mode in both touch; do
            run out err env LD_PRELOAD="$order" ARENAFIX_MODE=$mode ARENAFIX_VERBOSE=1 \
                "$P/pinwork" $THREADS pin
            need_rc0 "$order mode $mode" err
            [ "$(afx_lines err)" -eq 1 ] || { cat err; die "$order: want one decision"; }
            ! grep -q 'standing down' err || { cat err; die "$order: stood down"; }
            [ -z "$check" ] || grep -q "$check" err || { cat err; die "$order: '$check' missing"; }
            if have_affected; then
                run out err env LD_PRELOAD="$order" ARENAFIX_MODE=$mode "${AFF[@]}" "$P/pinwork" $THREADS pin
                need_rc0 "$order mode $mode, affected glibc" err
                [ "$(arenas_of out)" = "$FIXED_ARENAS" ] || die "$order, affected: $(cat out), want $FIXED_ARENAS"
                [ -z "$check" ] || grep -q "$check" err || { cat err; die "$order: '$check' missing"; }
            fi
        done
    done
}

p_wrapcreate() {
    with_neighbour "$P/libwrapcreate.so" "wrapcreate: calls=$THREADS started=$THREADS"
}

p_faketime() {
    local lib=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
    [ -e $lib ] || skip "libfaketime not installed (apt-get install libfaketime)"
    FAKETIME="@2000-01-01 00:00:00" with_neighbour $lib
}

p_eatmydata() {
    local lib=/usr/lib/x86_64-linux-gnu/libeatmydata.so
    [ -e $lib ] || skip "eatmydata not installed (apt-get install eatmydata)"
    with_neighbour $lib
}

# A foreign malloc: the shim stands down, before or after it.
stands_down_for() {
    local other=$1
    [ -e "$other" ] || skip "$other not installed"
    for order in "$other:$LIB" "$LIB:$other"; do
        run out err env LD_PRELOAD="$order" ARENAFIX_MODE=both ARENAFIX_VERBOSE=1 "$P/semantics"
        need_rc0 "$order" err
        grep -q "standing down: malloc is not glibc's" err || { cat err; die "$order: did not stand down"; }
    done
}
p_jemalloc() { stands_down_for /usr/lib/x86_64-linux-gnu/libjemalloc.so.2; }
p_tcmalloc() { stands_down_for /usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4; }

# An ASan-instrumented program with the (plain) shim preloaded after
# the ASan runtime, as ASan requires.
p_asan_program() {
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
    for cmd in "pinwork $THREADS pin" "semantics"; do
        # shellcheck disable=SC2086
        run out err env LD_PRELOAD="$ASAN_RT:$LIB" ARENAFIX_MODE=both ARENAFIX_VERBOSE=1 $HARD/asan/$cmd
        need_rc0 "$cmd" err
        ! grep -q 'Sanitizer' err || { cat err; die "$cmd: sanitizer report"; }
        grep -q "standing down: malloc is not glibc's" err || { cat err; die "$cmd: did not stand down"; }
    done
}

# A ThreadSanitizer program with the shim preloaded, so the shim sits
# between the program and the TSan runtime's own pthread_create: every
# thread must still reach TSan, or TSan aborts on the first join.
p_tsan_program() {
    export TSAN_OPTIONS=halt_on_error=1:exitcode=66
    for cmd in "pinwork $THREADS pin" "pinwork $THREADS attr" "race dlopen $LIB 8"; do
        # shellcheck disable=SC2086
        run out err env LD_PRELOAD="$LIB" ARENAFIX_MODE=both ARENAFIX_VERBOSE=1 $HARD/tsan/$cmd
        need_rc0 "$cmd" err
        ! grep -q 'ThreadSanitizer' err || { cat err; die "$cmd: TSan report"; }
        grep -q "standing down: malloc is not glibc's" err || { cat err; die "$cmd: did not stand down"; }
    done
}

# ---- the run ----------------------------------------------------------------

echo "arenafix hardening: $LIB"
have_affected && echo "affected glibc: $AFFECTED" || echo "affected glibc: none (arena counts not checked)"

property asan-unit            p_asan_unit
property asan-shim            p_asan_shim
property ubsan-shim           p_ubsan_shim
property ubsan-integration    p_ubsan_integration
property tsan-activation      p_tsan_activation
property signal-flood         p_signal_flood
property drd-trampoline       p_drd_trampoline
property memcheck             p_memcheck
for target in cpulist tunables config maps procstatus text unitfile engines bolt; do
    property fuzz-$target     p_fuzz $target
done
property fuzz-total           p_fuzz_total
property race-once            p_race_once
property churn-100k           p_churn
property semantics            p_semantics
property no-sys               p_no_sys
property no-proc              p_no_proc
property no-sys-no-proc       p_no_sys_proc
property open-denied          p_open_denied
property rlimit-nproc         p_nproc
property oom-trampoline       p_oom_trampoline
property dlopen-late          p_dlopen_late
property hostile-vars         p_hostile_vars
property hostile-tunables     p_hostile_tunables
property hostile-cpulist      p_hostile_cpulist
property setuid-ignores-vars  p_secure
property neighbour-wrapcreate p_wrapcreate
property neighbour-faketime   p_faketime
property neighbour-eatmydata  p_eatmydata
property neighbour-jemalloc   p_jemalloc
property neighbour-tcmalloc   p_tcmalloc
property neighbour-asan       p_asan_program
property neighbour-tsan       p_tsan_program

# The arenafix command run as root against a local attacker: each file
# defines its properties with `property` (docs/hardening.md, threat model).
for attack in "$HARD_SRC"/attack-*.sh; do
    [ -e "$attack" ] || continue
    # shellcheck disable=SC1090
    . "$attack"
done

echo "$npass passed, $nfail failed, $nskip skipped"
[ $nfail -eq 0 ]
