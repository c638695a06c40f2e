# Sourced by test/hard/run.sh after attack-inspect.sh (its helpers:
# attacker, run, die, skip, strays; $P is build/hard/bin).  `arenafix
# inspect --all` reads each mapped libc's banner once per file, not once
# per process that maps it, even when the file has no banner
# (docs/hardening.md, threat model).  Counted in bytes read, not in
# seconds.
# shellcheck disable=SC2154  # rc: set by run (run.sh)

# mapping FILE...: the attacker's processes, one per FILE mapping it
# (test/hard/progs/mapfork.c: forks, far cheaper than hundreds of
# hostile starts), PIDs rising with the order of the FILEs; all of
# them in APIDS.
mapping() {
    local _ out=$HOME_DIR/mapfork.out before=${#APIDS[@]}
    cp "$P/mapfork" "$HOME_DIR/mapfork" || die "cp mapfork"
    chown "$AUID:$AGID" "$HOME_DIR/mapfork"
    setpriv --reuid="$AUID" --regid="$AGID" --clear-groups "$HOME_DIR/mapfork" "$@" >"$out" 2>&1 &
    APIDS+=("$!")
    for _ in $(seq 100); do
        grep -q '^ready' "$out" && break
        sleep 0.1
    done
    grep -q '^ready' "$out" || { cat "$out"; die "the attacker's processes did not start"; }
    mapfile -t -O "${#APIDS[@]}" APIDS < <(grep -E '^[0-9]+$' "$out")
    [ ${#APIDS[@]} -eq $((before + 1 + $#)) ] || die "$# processes asked for, $((${#APIDS[@]} - before - 1)) started"
}

# bytes_read_from FILE: what root's `inspect --all` read from FILE
# (strace -y names the file behind each descriptor, map_files'
# included): bytes in $READ, calls in $CALLS.
bytes_read_from() {
    LIMIT=120 run out err strace -f -qq -y -s 0 -e trace=read,pread64,readv,preadv,preadv2 -o trace "$CLI" inspect --all --no-probe
    [ "$rc" -le 4 ] || { cat out err; die "inspect --all: exit status $rc"; }
    read -r CALLS READ < <(grep -F "<$1>" trace | awk '$NF ~ /^[0-9]+$/ { n++; b += $NF } END { print n + 0, b + 0 }')
}

# banner_less FILE SIZE: a libc.so.6 of the attacker's without "release
# version" in it.
banner_less() {
    mkdir -p "${1%/*}" || die "mkdir ${1%/*}"
    head -c "$2" /dev/zero >"$1" || die "write $1"
    chown -R "$AUID:$AGID" "${1%/*}"
}

# Item: a mapped libc.so.6 with no glibc banner is read in full once,
# whatever the number of processes mapping it (a failed read is kept
# under the same key as a version found).
p_attack_scan_cache() {
    attacker
    command -v strace >/dev/null || skip "no strace"
    [ -x "$P/mapfork" ] || skip "build/hard/bin/mapfork not built"
    local lib=$HOME_DIR/lib/libc.so.6 procs=40 full=$((16 << 20))   # AFX_GLIBC_SCAN_MAX
    banner_less "$lib" $full
    # shellcheck disable=SC2046
    mapping $(for _ in $(seq $procs); do echo "$lib"; done)
    bytes_read_from "$lib"
    echo "$procs processes map $lib: $CALLS reads, $READ bytes"
    [ "$READ" -ge $full ] || die "$lib read $READ bytes: never scanned (the test sees nothing)"
    [ "$READ" -le $((2 * full)) ] \
        || die "$lib read $READ bytes in $CALLS calls for $procs processes: once per process, not once per file"
    [ -z "$(strays)" ] || die "processes left: $(strays)"
}

# Item: more distinct banner-less files than the cache holds, mapped
# first, leave it working for the files after them (it replaces its
# oldest entry rather than stopping).  inspect --all goes by PID, so the
# fillers' processes start first; were PIDs to wrap among them, the
# check would lose its power, never fail wrongly.
p_attack_scan_cache_full() {
    attacker
    command -v strace >/dev/null || skip "no strace"
    [ -x "$P/mapfork" ] || skip "build/hard/bin/mapfork not built"
    # More than KNOWN_LIBC_MAX in cli/target/procreport.c.
    local fillers=300 procs=40 full=$((16 << 20)) lib=$HOME_DIR/lib/libc.so.6 i
    local -a files=()
    for i in $(seq $fillers); do files+=("$HOME_DIR/f$i/libc.so.6"); done
    # A page of spaces each, by builtins: a fork per file is slow.
    mkdir "${files[@]%/libc.so.6}" || die "mkdir"
    for i in "${files[@]}"; do printf '%4096s' '' >"$i" || die "write $i"; done
    chown -R "$AUID:$AGID" "$HOME_DIR"
    banner_less "$lib" $full
    for i in $(seq $procs); do files+=("$lib"); done
    mapping "${files[@]}"
    bytes_read_from "$lib"
    echo "$fillers files first, then $procs processes map $lib: $CALLS reads, $READ bytes"
    [ "$READ" -ge $full ] || die "$lib read $READ bytes: never scanned (the test sees nothing)"
    [ "$READ" -le $((2 * full)) ] \
        || die "$lib read $READ bytes in $CALLS calls for $procs processes after $fillers other files: a full cache took no more"
}

property attack-scan-cache      p_attack_scan_cache
property attack-scan-cache-full p_attack_scan_cache_full
