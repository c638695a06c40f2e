# Sourced by test/hard/run.sh: `arenafix inspect`, run as root, against a
# process a local attacker controls (docs/hardening.md, threat model).
# Each property makes a throwaway user, runs test/cli/hostile.c as that
# user (static: the only libc and ld.so in its maps are files it
# chose), runs root's command against it, and removes the user, its
# files and its processes whatever happens.

CLI=${AFX_CLI:-$(dirname "$TEST_BIN")/cli/arenafix}

# Make the attacker: $ATTACKER (name), $AUID, $AGID, and $HOME_DIR, a
# directory of its own; a trap undoes it all.
attacker() {
    [ "$(id -u)" = 0 ] || skip "needs root to make a user and to run the command as root"
    if ! command -v useradd >/dev/null || ! command -v userdel >/dev/null; then
        skip "no useradd (passwd)"
    fi
    if [ ! -x "$TEST_BIN/hostile" ] || [ ! -x "$CLI" ]; then
        skip "build/test/hostile or the command not built"
    fi
    ATTACKER=afx-attack-$BASHPID
    APIDS=()
    HOME_DIR=
    trap attacker_gone EXIT
    useradd --system --no-create-home --user-group --shell /usr/sbin/nologin "$ATTACKER" \
        || die "useradd $ATTACKER"
    AUID=$(id -u "$ATTACKER") AGID=$(id -g "$ATTACKER")
    HOME_DIR=$(mktemp -d "$TMP/attacker.XXXXXX") || die "mktemp"
    chmod 755 "$HOME_DIR"
    cp "$TEST_BIN/hostile" "$HOME_DIR/hostile"
    chown -R "$AUID:$AGID" "$HOME_DIR"
}

attacker_gone() {
    local pid
    for pid in "${APIDS[@]}" $(strays); do kill -KILL "$pid" 2>/dev/null; done
    for pid in "${APIDS[@]}"; do wait "$pid" 2>/dev/null; done
    [ -z "$HOME_DIR" ] || rm -rf "$HOME_DIR"
    userdel "$ATTACKER" 2>/dev/null
    getent group "$ATTACKER" >/dev/null && groupdel "$ATTACKER" 2>/dev/null
    if id -u "$ATTACKER" >/dev/null 2>&1; then
        echo "FAIL: user $ATTACKER left behind"
        exit 1
    fi
}

# as_attacker CMD...: run as the attacker, no supplementary groups.
as_attacker() { setpriv --reuid="$AUID" --regid="$AGID" --clear-groups "$@"; }

# hostile ARGS...: start test/cli/hostile as the attacker; its PID in $HPID
# (setpriv execs it: not through a function, which would fork a shell),
# its output in $HOUT.  Each start has its own output file, made empty
# before the start: the "ready" waited for is this start's (one shared
# file, emptied only once the new child ran, could still hold the
# previous start's line when the wait began).
hostile() {
    HOUT=$HOME_DIR/hostile.${#APIDS[@]}.out
    : >"$HOUT" || die "cannot make $HOUT"
    setpriv --reuid="$AUID" --regid="$AGID" --clear-groups "$HOME_DIR/hostile" --pause "$@" \
        >>"$HOUT" 2>&1 &
    HPID=$!
    APIDS+=("$HPID")
    local _
    for _ in $(seq 50); do
        grep -q '^ready' "$HOUT" && return 0
        sleep 0.1
    done
    cat "$HOUT"
    die "the hostile process did not start"
}

# Root's command, on a terminal of its own (as an operator's): out in $1.
on_terminal() {
    local out=$1
    shift
    # shellcheck disable=SC2016
    t script -qec "$(printf '%q ' "$@")" /dev/null >"$out" 2>&1
    rc=$?
    tr -d '\r' <"$out" >"$out.lines" && mv "$out.lines" "$out"
}

# Processes of the attacker's other than those the test started.
strays() {
    local pid mine p
    [ -n "${AUID:-}" ] || return 0
    for pid in $(pgrep -u "$AUID"); do
        mine=0
        for p in "${APIDS[@]}"; do [ "$pid" = "$p" ] && mine=1; done
        [ $mine = 1 ] || echo "$pid"
    done
}

# Item: inspect read the file the map named as libc, by name.  The
# process maps a copy of the real libc, then puts a FIFO, a link to
# /dev/zero or a 100 GB sparse file where that name was: inspect reads
# the mapped file itself, in bounded time and memory, even as root.
p_attack_mapped_libc() {
    attacker
    local real=/lib/x86_64-linux-gnu/libc.so.6 want
    [ -e $real ] || skip "no $real"
    want=$(grep -ao 'release version [0-9.]*[0-9]' $real | head -1 | sed 's/.* //')
    [ -n "$want" ] || die "no version in $real"
    local kind lib
    for kind in fifo zero sparse mapped-sparse; do
        lib=$HOME_DIR/$kind/libc.so.6
        mkdir "$HOME_DIR/$kind" && chown "$AUID:$AGID" "$HOME_DIR/$kind"
        if [ $kind = mapped-sparse ]; then
            # The mapped file itself is 100 GB, its banner at the start.
            as_attacker sh -c "printf 'GNU C Library release version 9.99.\n' >'$lib' && truncate -s 100G '$lib'"
            want=9.99
        else
            as_attacker cp $real "$lib"
        fi
        hostile "$lib"
        if [ $kind != mapped-sparse ]; then
            as_attacker rm "$lib"
            case $kind in
            fifo) as_attacker mkfifo "$lib (deleted)" ;;
            zero) as_attacker ln -s /dev/zero "$lib (deleted)" ;;
            sparse) as_attacker truncate -s 100G "$lib (deleted)" ;;
            esac
        fi
        grep -q "$kind/libc.so.6" "/proc/$HPID/maps" || die "$kind: not mapped"
        LIMIT=20 run out err prlimit --as=$((512 << 20)) -- "$CLI" inspect --json --no-probe "$HPID"
        cat out err
        [ "$rc" -le 4 ] || die "$kind: exit status $rc"
        grep -q "\"glibc\":\"$want\"" out || die "$kind: not the mapped file's version ($want)"
        kill -KILL "$HPID"
        wait "$HPID" 2>/dev/null
    done
    return 0
}

# Items: escape sequences in its name and in a mapped file's path reach
# no terminal; a name that only starts like jemalloc's is not jemalloc;
# bytes that are not UTF-8 leave the JSON valid.
p_attack_names() {
    attacker
    local dir=$HOME_DIR/$'\e[2J\e[H all fine \r'
    mkdir "$dir" && cp "$HOME_DIR/hostile" "$dir/libjemalloc.so.2" \
        && cp "$HOME_DIR/hostile" "$HOME_DIR/libjemalloc-is-not-here" || die "files"
    chown -R "$AUID:$AGID" "$HOME_DIR"
    hostile --name $'\e]52;c;YQ==\a' "$HOME_DIR/libjemalloc-is-not-here"
    on_terminal out "$CLI" inspect --no-probe "$HPID"
    cat -v out
    [ "$rc" -le 4 ] || die "exit status $rc"
    ! LC_ALL=C grep -q $'[^\t -~]' out || die "bytes a terminal acts on reach it"
    grep -qF '(\033]52;c;YQ==\007): fine' out || die "the name is not shown escaped"
    ! grep -q 'malloc:' out || die "a file named libjemalloc-... taken for jemalloc"

    hostile "$dir/libjemalloc.so.2"
    on_terminal out "$CLI" inspect --no-probe "$HPID"
    cat -v out
    ! LC_ALL=C grep -q $'[^\t -~]' out || die "bytes a terminal acts on reach it"
    grep -qF '/\033[2J\033[H all fine \015/libjemalloc.so.2' out || die "the path is not shown escaped"

    hostile --name $'\xff\xfe\xc3(\x9b2J'
    run out err "$CLI" inspect --json --no-probe "$HPID"
    cat out
    need_rc0 "inspect --json" err
    ! LC_ALL=C grep -q '[^ -~]' out || die "JSON with bytes outside ASCII"
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' out || die "not JSON"
    grep -qF '"name":"\ufffd\ufffd\ufffd(\ufffd2J"' out || die "the name is not U+FFFD where it is not UTF-8"
}

# Items: inspect --all runs nothing of any process's (its ld.so, were it
# run, would hang, and as the probe of inspect PID does), lists a pinned
# one at risk with its name escaped, and leaves nothing behind.
p_attack_scan() {
    attacker
    command -v strace >/dev/null || skip "no strace"
    [ "$ONLINE" -ge 2 ] || skip "one CPU online: pinning narrows nothing"
    cp "$HOME_DIR/hostile" "$HOME_DIR/ld-linux-x86-64.so.2"
    cp "$HOME_DIR/hostile" "$HOME_DIR/libc.so.6"
    touch "$HOME_DIR/hang"
    chown "$AUID:$AGID" "$HOME_DIR"/*
    setpriv --reuid="$AUID" --regid="$AGID" --clear-groups taskset -c 0 "$HOME_DIR/hostile" --pause --name $'\e]52;c;YQ==\a' \
        "$HOME_DIR/ld-linux-x86-64.so.2" "$HOME_DIR/libc.so.6" >"$HOME_DIR/hostile.out" 2>&1 &
    HPID=$!
    APIDS+=("$HPID")
    await "the hostile program's ready" grep -q '^ready' "$HOME_DIR/hostile.out"
    # A scan that waited on the process's ld.so would meet the limit;
    # one that ran it is in the trace.
    LIMIT=30 run out err strace -f -qq -e trace=execve,execveat -o trace "$CLI" inspect --all
    cat out err
    [ "$rc" -le 4 ] || die "inspect --all: exit status $rc"
    ! LC_ALL=C grep -q $'[^\t -~]' out || die "bytes a terminal acts on reach it"
    grep -E "^ *$HPID  at risk " out | grep -qF '\033]52;c;YQ==\007 ('"$HOME_DIR"'/hostile): ' \
        || die "the pinned process is not listed at risk, its name escaped"
    # The first exec is the command; the others only the host's probe.
    ! grep -E 'execve(at)?\(' trace | tail -n +2 | grep -vF '["arenafix", "__probe-child", ' || die "ran something else"
    ! grep -qF "$HOME_DIR" trace || die "ran a file of the process's"
    [ -z "$(strays)" ] || die "processes left: $(strays)"
}

property attack-mapped-libc     p_attack_mapped_libc
property attack-names           p_attack_names
property attack-scan            p_attack_scan
