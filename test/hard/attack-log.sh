# Sourced by test/hard/run.sh: ARENAFIX_LOG naming a path in a directory
# a local attacker can write to (docs/hardening.md, threat model).  The
# attacker (attacker(), attack-inspect.sh) plants a FIFO, a file of its
# own, or a second name for a file of root's where a root program with
# the library will log; the program must finish promptly, its lines on
# its stderr, none of them in the attacker's hands or in root's file.
# The legitimate uses still work: a new file is created, an own file
# appended to.  Each scene is played twice: in a sticky world-writable
# directory (/tmp; refused by the kernel already where fs.protected_fifos
# and fs.protected_regular are set) and in a directory of the attacker's
# (which no sysctl protects).  Needs root; skipped otherwise.
# shellcheck shell=bash
# shellcheck disable=SC2154  # rc: set by run.sh's run()

# al_log WHO LOG CMD...: run CMD with the library, verbose, logging to
# LOG, as WHO (root, or a uid); each run bounded: a hang is a failure.
al_log() {
    local who=$1 log=$2 lib=$LIB
    shift 2
    local -a as=()
    if [ "$who" != root ]; then
        as=(setpriv --reuid="$who" --regid="$who" --clear-groups)
        lib=$AL_COPY/libarenafix.so
    fi
    LIMIT=10 run out err "${as[@]}" env LD_PRELOAD="$lib" ARENAFIX_VERBOSE=1 ARENAFIX_LOG="$log" "$@"
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        die "$who, ARENAFIX_LOG=$log: blocked (killed after 10 s)"
    fi
    need_rc0 "$who, ARENAFIX_LOG=$log: $*" err
}

# The line must be on stderr: refused, the log is stderr.
al_on_stderr() {
    [ "$(afx_lines err)" -ge 1 ] || { cat err; die "$1: no line on stderr (it went to the log)"; }
}

# The first pthread_create, and the constructor with ARENAFIX_EAGER=1.
al_programs() {
    local who=$1 log=$2 what=$3 pinwork=$P/pinwork
    [ "$who" = root ] || pinwork=$AL_COPY/pinwork
    al_log "$who" "$log" "$pinwork" 2 none
    al_on_stderr "$what"
    al_log "$who" "$log" ARENAFIX_EAGER=1 /bin/true
    al_on_stderr "$what, ARENAFIX_EAGER=1"
}

p_attack_log() {
    attacker
    command -v setpriv >/dev/null || skip "setpriv not installed (util-linux)"
    umask 022     # the mode a new log gets is checked
    # The sticky directory is root's, as /tmp; the victim's copies of the
    # program and library are where a second uid can read them.
    SHARED=$(mktemp -d "$TMP/log-shared.XXXXXX") || die "mktemp"
    AL_COPY=$(mktemp -d "$TMP/log-copy.XXXXXX") || die "mktemp"
    trap 'rm -rf "$SHARED" "$AL_COPY"; attacker_gone' EXIT
    chmod 1777 "$SHARED" || die "chmod"
    chmod 755 "$AL_COPY" || die "chmod"
    install -m 755 "$P/pinwork" "$AL_COPY/pinwork" || die "cannot copy pinwork to $AL_COPY"
    install -m 644 "$LIB" "$AL_COPY/libarenafix.so" || die "cannot copy the library to $AL_COPY"
    echo "fs.protected_fifos=$(cat /proc/sys/fs/protected_fifos 2>/dev/null)" \
         "fs.protected_regular=$(cat /proc/sys/fs/protected_regular 2>/dev/null)"
    local dir log victim holder stolen
    for dir in "$SHARED" "$HOME_DIR"; do
        log=$dir/arenafix.log
        echo "== $dir"

        # A FIFO nobody reads: opening it to write would block.
        as_attacker mkfifo "$log" || die "mkfifo"
        al_programs root "$log" "FIFO without a reader"
        rm -f "$log"

        # A FIFO the attacker holds open (read and write, so its own open
        # does not wait): root's lines must not reach it.
        as_attacker mkfifo "$log" || die "mkfifo"
        # shellcheck disable=SC2016  # $1: the inner shell's
        setpriv --reuid="$AUID" --regid="$AGID" --clear-groups sh -c 'exec sleep 60 <>"$1"' sh "$log" &
        holder=$!
        APIDS+=("$holder")
        for _ in $(seq 50); do
            [ "$(readlink "/proc/$holder/fd/0")" = "$log" ] && break
            sleep 0.1
        done
        [ "$(readlink "/proc/$holder/fd/0")" = "$log" ] || die "the attacker does not hold the FIFO"
        al_programs root "$log" "FIFO with a reader"
        # What is in the pipe, without waiting (the holder is a writer).
        stolen=$(dd if="$log" iflag=nonblock bs=64k count=1 status=none 2>/dev/null)
        [ -z "$stolen" ] || die "FIFO with a reader: the attacker read: $stolen"
        kill -KILL "$holder"
        wait "$holder" 2>/dev/null
        rm -f "$log"

        # The attacker's own file, writable by all.
        as_attacker sh -c "umask 0 && : >'$log'" || die "cannot plant a file"
        al_programs root "$log" "the attacker's file"
        [ ! -s "$log" ] || { cat "$log"; die "root appended to the attacker's file"; }
        rm -f "$log"

        # A second name for a file of root's (a stand-in for /etc/shadow).
        # Made by root here: the attacker may make it only where
        # fs.protected_hardlinks is 0.
        victim=$(mktemp "$TMP/victim.XXXXXX") || die "mktemp"
        echo 'root:secret' >"$victim"
        ln "$victim" "$log" || die "ln"
        al_programs root "$log" "a hard link to root's file"
        [ "$(cat "$victim")" = 'root:secret' ] || { cat "$victim"; die "root appended to a file with two names"; }
        rm -f "$log" "$victim"

        # Legitimate: a new file (created, root's, mode 0644, the lines in
        # it and none on stderr), then the same file appended to.
        al_log root "$log" "$P/pinwork" 2 none
        [ "$(afx_lines err)" -eq 0 ] || { cat err; die "new file: lines on stderr"; }
        [ "$(stat -c '%u %a' "$log")" = "0 644" ] || die "new file: $(stat -c '%U %a' "$log"), want root 644"
        [ "$(afx_lines "$log")" -eq 1 ] || { cat "$log"; die "new file: want one line in it"; }
        al_log root "$log" ARENAFIX_EAGER=1 /bin/true
        [ "$(afx_lines err)" -eq 0 ] || { cat err; die "own file: lines on stderr"; }
        [ "$(afx_lines "$log")" -eq 2 ] || { cat "$log"; die "own file: not appended to"; }
        rm -f "$log"
    done

    # Not only root: a program of another uid ($NPROC_UID, no account)
    # refuses the attacker's file, and creates its own.
    log=$SHARED/arenafix.log
    as_attacker sh -c "umask 0 && : >'$log'" || die "cannot plant a file"
    al_programs "$NPROC_UID" "$log" "uid $NPROC_UID, the attacker's file"
    [ ! -s "$log" ] || { cat "$log"; die "uid $NPROC_UID appended to the attacker's file"; }
    rm -f "$log"
    al_log "$NPROC_UID" "$log" "$AL_COPY/pinwork" 2 none
    [ "$(afx_lines err)" -eq 0 ] || { cat err; die "uid $NPROC_UID, new file: lines on stderr"; }
    [ "$(stat -c %u "$log")" = "$NPROC_UID" ] || die "uid $NPROC_UID, new file: owned by $(stat -c %u "$log")"
    [ "$(afx_lines "$log")" -eq 1 ] || { cat "$log"; die "uid $NPROC_UID, new file: want one line in it"; }
    return 0
}

property attack-log             p_attack_log
