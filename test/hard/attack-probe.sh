# Sourced by test/hard/run.sh after attack-inspect.sh (whose attacker,
# hostile and on_terminal it uses): what `arenafix inspect PID`, run as
# root, executes of a process a local attacker controls, and as whom.
# The rule (docs/hardening.md): inspect runs a process's ld.so and libc
# only if root alone can have written them, only under one identity
# read before and after they were opened, and then jailed as the
# process.

# The execs of the command's run traced into $1 but the first (the
# command's own): none at all when nothing was probed.
execs_after_the_first() { grep -E 'execve(at)?\(' "$1" | tail -n +2; }
# None of those.
no_exec_after_the_first() { [ -z "$(execs_after_the_first "$1")" ]; }

# A setuid-root program that stays alive, blocked on its stdin: a copy
# of cat, in a directory of root's; its path in $SUID.
setuid_program() {
    local dir
    dir=$(mktemp -d "$TMP/suid.XXXXXX") || die "mktemp"
    chmod 755 "$dir"
    cp /usr/bin/cat "$dir/suid-cat" && chmod 4755 "$dir/suid-cat" || die "setuid copy"
    SUID=$dir/suid-cat
    case ,$(findmnt -no OPTIONS -T "$dir"), in
    *,nosuid,*) skip "$TMP is mounted nosuid" ;;
    esac
}

# An open pipe no one writes to, for the setuid program's stdin: $IN.
held_pipe() {
    IN=$TMP/in.$BASHPID
    mkfifo "$IN" && chmod 666 "$IN" || die "mkfifo"
    exec 8<>"$IN"
}

# A directory of root's in which every directory up to / is root's
# alone (not $TMP: /tmp is anyone's to add to): $SAFE, removed at exit.
root_only_dir() {
    local base
    for base in /run /var/lib /; do
        [ "$(stat -c '%u %a' "$base" 2>/dev/null)" = "0 755" ] || continue
        SAFE=$(mktemp -d "${base%/}/arenafix-hard.XXXXXX") || continue
        chmod 755 "$SAFE"
        trap 'rm -rf "$SAFE"; attacker_gone' EXIT
        return 0
    done
    skip "no directory of root's alone to work in (/run, /var/lib, /)"
}

# Item 1: the process's own ld.so and libc.  Not its files, nor root's
# files where someone else may write them or swap them: none of them is
# run; inspect gives the banner's version, says why it ran nothing, and
# cannot tell.  Before, each of these ran (as the process, jailed).
p_attack_probe_untrusted() {
    attacker
    command -v strace >/dev/null || skip "no strace"
    root_only_dir
    local kind dir want
    for kind in own sticky group-writable-file group-writable-dir; do
        dir=$SAFE/$kind
        case $kind in
        own) dir=$HOME_DIR/$kind && mkdir "$dir" && chown "$AUID:$AGID" "$dir" ;;
        sticky) mkdir -m 1777 "$dir" ;;
        group-writable-dir) mkdir -m 775 "$dir" && chgrp "$AGID" "$dir" ;;
        *) mkdir -m 755 "$dir" ;;
        esac
        cp "$HOME_DIR/hostile" "$dir/ld-linux-x86-64.so.2"
        cp "$HOME_DIR/hostile" "$dir/libc.so.6"
        case $kind in
        own) chown "$AUID:$AGID" "$dir"/*; want="its ld.so $dir/ld-linux-x86-64.so.2: owned by uid $AUID" ;;
        sticky) want="its directory $dir is writable by its group or others (mode 1777)" ;;
        group-writable-file) chmod 664 "$dir"/*; want="writable by its group or others (mode 0664)" ;;
        group-writable-dir) want="its directory $dir is writable by its group or others (mode 0775)" ;;
        esac
        hostile "$dir/ld-linux-x86-64.so.2" "$dir/libc.so.6"
        LIMIT=30 run out err strace -f -qq -e trace=execve,execveat -o trace "$CLI" inspect "$HPID"
        cat out err
        [ "$rc" = 5 ] || die "$kind: exit status $rc, not 5 (cannot tell)"
        grep -q "^process $HPID (hostile): cannot tell$" out || die "$kind: the verdict is not 'cannot tell'"
        grep -qF "not executed: " out || die "$kind: no word that its glibc was not executed"
        grep -qF "$want" out || die "$kind: not the reason: $want"
        ! grep -q 'jail uid=' out || die "$kind: its ld.so ran"
        no_exec_after_the_first trace || die "$kind: ran something"
        LIMIT=30 run out err "$CLI" inspect --json "$HPID"
        grep -q '"verdict":"cannot tell","exit_status":5,' out || { cat out; die "$kind: JSON verdict"; }
        grep -q '"glibc_executed":false' out || die "$kind: JSON says it ran"
        kill -KILL "$HPID"
        wait "$HPID" 2>/dev/null
    done
    [ -z "$(strays)" ] || die "processes left: $(strays)"
}

# A root-owned setuid program the attacker started: its real user is
# the attacker, its effective one root.  No code runs under mixed IDs:
# not probed, and nothing executed.  Before, root's own glibc ran with
# euid 0 in the jail.
p_attack_probe_mixed_ids() {
    attacker
    command -v strace >/dev/null || skip "no strace"
    setuid_program
    held_pipe
    setpriv --reuid="$AUID" --regid="$AGID" --clear-groups "$SUID" <"$IN" >/dev/null 2>&1 &
    HPID=$!
    APIDS+=("$HPID")
    local _
    for _ in $(seq 50); do
        [ "$(awk '/^Uid:/ { print $3 }' "/proc/$HPID/status" 2>/dev/null)" = 0 ] && break
        sleep 0.1
    done
    grep '^Uid:' "/proc/$HPID/status"
    LIMIT=30 run out err strace -f -qq -e trace=execve,execveat -o trace "$CLI" inspect "$HPID"
    cat out err
    grep -q "not probed: it runs with mixed user or group IDs (uid $AUID, euid 0" out \
        || die "probed a setuid program under mixed IDs"
    no_exec_after_the_first trace || die "ran something"
    exec 8>&-
}

# gdb holds root's inspect where it opens the jail, after it has opened
# the process's ld.so; meanwhile the process runs a setuid-root program
# ($SUID), which is then alive with euid 0, blocked on a pipe.  The
# window the race needs, made certain.  Out in $1; $FLIPPED says
# whether inspect got that far.
inspect_while_it_turns_setuid() {
    local out=$1 flip=$TMP/flip.$BASHPID script=$TMP/gdb.$BASHPID
    FLIPPED=$TMP/flipped.$BASHPID
    rm -f "$FLIPPED"
    cat >"$flip" <<EOF
kill -USR1 $HPID
for i in \$(seq 100); do
    if [ "\$(awk '/^Uid:/ { print \$3 }' /proc/$HPID/status)" = 0 ]; then touch '$FLIPPED'; exit 0; fi
    sleep 0.05
done
EOF
    cat >"$script" <<EOF
set breakpoint pending on
set confirm off
break afx_jail_open
commands
silent
shell sh $flip
continue
end
run
EOF
    LIMIT=60 run "$out" "$out.err" gdb -q -batch -nx -x "$script" --args "$CLI" inspect "$HPID"
    cat "$out" "$out.err"
}

# Item 1, the race of the review: the process turns setuid between
# inspect's opening its ld.so and reading its credentials.  With its own
# ld.so that ld.so is never run, setuid or not (before: it ran with
# euid 0 and read /etc/shadow).  With root's glibc (a shell) it is not
# probed either: its credentials changed while it was read.
p_attack_probe_setuid_race() {
    attacker
    command -v gdb >/dev/null || skip "no gdb"
    setuid_program
    held_pipe
    cp "$HOME_DIR/hostile" "$HOME_DIR/ld-linux-x86-64.so.2"
    cp "$HOME_DIR/hostile" "$HOME_DIR/libc.so.6"
    chown "$AUID:$AGID" "$HOME_DIR"/*
    setpriv --reuid="$AUID" --regid="$AGID" --clear-groups "$HOME_DIR/hostile" --pause --exec-on-usr1 "$SUID" \
        "$HOME_DIR/ld-linux-x86-64.so.2" "$HOME_DIR/libc.so.6" <"$IN" >"$HOME_DIR/hostile.race" 2>&1 &
    HPID=$!
    APIDS+=("$HPID")
    local _
    for _ in $(seq 50); do grep -q '^ready' "$HOME_DIR/hostile.race" && break; sleep 0.1; done
    inspect_while_it_turns_setuid out
    ! grep -q 'shadow=yes' out || die "the process's ld.so read /etc/shadow"
    ! grep -q 'jail uid=' out || die "the process's ld.so ran"
    grep -qF "not executed: its ld.so $HOME_DIR/ld-linux-x86-64.so.2: owned by uid $AUID" out \
        || die "no word that its ld.so was not run"
    kill -KILL "$HPID"
    wait "$HPID" 2>/dev/null

    # shellcheck disable=SC2016
    setpriv --reuid="$AUID" --regid="$AGID" --clear-groups bash -c \
        'trap "exec $0" USR1; echo ready; while :; do sleep 0.1; done' "$SUID" <"$IN" >"$HOME_DIR/shell.out" 2>&1 &
    HPID=$!
    APIDS+=("$HPID")
    for _ in $(seq 50); do grep -q '^ready' "$HOME_DIR/shell.out" && break; sleep 0.1; done
    inspect_while_it_turns_setuid out
    [ -e "$FLIPPED" ] || die "inspect never reached its jail, or the shell did not turn setuid"
    grep -q 'not probed: its credentials changed while it was read' out || die "probed across the change"
    ! grep -q 'probed as the process' out || die "probed across the change"
    exec 8>&-
}

# The jail, for a glibc that may run: the process's IDs (all four the
# same), its root (chroot), the lower of its and root's resource
# limits, no capabilities, and one exec: the opened loader, "" and
# AT_EMPTY_PATH, with only the library's off switch in its environment.
p_attack_probe_jail() {
    attacker
    command -v strace >/dev/null || skip "no strace"
    [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -gt 64 ] || skip "root's own open-file limit is 64 or less"
    setpriv --reuid="$AUID" --regid="$AGID" --clear-groups prlimit --nofile=64:64 sleep 600 &
    HPID=$!
    APIDS+=("$HPID")
    local _
    for _ in $(seq 50); do [ "$(cat "/proc/$HPID/comm" 2>/dev/null)" = sleep ] && break; sleep 0.1; done
    LIMIT=60 run out err strace -f -qq -v -e trace=execve,execveat,chroot,setresuid,setresgid,setgroups,prlimit64 \
        -o trace "$CLI" inspect "$HPID"
    cat out err
    grep -q 'probed as the process' out || die "not probed"
    grep -vE '^[0-9]+ +(execve|prlimit64)\(' trace | head -20
    # strace pads the result: "= 0" after blanks.
    grep -qE 'chroot\("\."\) += 0' trace || die "not in its root"
    grep -qE "setresuid\($AUID, $AUID, $AUID\) += 0" trace || die "not its user IDs"
    grep -qE "setresgid\($AGID, $AGID, $AGID\) += 0" trace || die "not its group IDs"
    grep -qE 'setgroups\(0, \[\]\) += 0' trace || die "not its (no) supplementary groups"
    grep -qE 'prlimit64\(0, RLIMIT_NOFILE, \{rlim_cur=64, rlim_max=64\}, NULL\) += 0' trace \
        || die "not the lower of its and root's open-file limits"
    grep -qE 'execveat\([0-9]+, "", \[.*\], \["ARENAFIX_MODE=off"\], AT_EMPTY_PATH\) += 0' trace \
        || die "not the one exec of the opened loader"
    [ "$(grep -cE 'execveat\(' trace)" = 2 ] || die "other execs than the two probe children"
    [ -z "$(strays)" ] || die "processes left: $(strays)"
}

# Item 4: where pidfd_open fails (an old kernel, a filter, no descriptor
# left), the PID is checked by its start time instead of not at all.
# Under nopidfd (pidfd_open fails with ENOSYS) inspect still probes; and
# when gdb holds it at that check while the process goes away, it runs
# nothing (before, without a pidfd, the check was skipped).
p_attack_probe_no_pidfd() {
    attacker
    command -v gdb >/dev/null || skip "no gdb"
    local nopidfd=$HARD/bin/nopidfd pidfile=$HOME_DIR/sleep.pid gone=$TMP/gone.$BASHPID
    [ -x "$nopidfd" ] || skip "build/hard/bin/nopidfd not built"
    # The shell reaps the sleep at once: a killed one leaves no zombie.
    # shellcheck disable=SC2016
    setpriv --reuid="$AUID" --regid="$AGID" --clear-groups sh -c 'sleep 600 & echo $! >"$0"; wait' "$pidfile" &
    APIDS+=("$!")
    local _
    for _ in $(seq 50); do [ -s "$pidfile" ] && break; sleep 0.1; done
    HPID=$(cat "$pidfile")
    APIDS+=("$HPID")
    LIMIT=60 run out err "$nopidfd" "$CLI" inspect "$HPID"
    cat out err
    grep -q 'probed as the process' out || die "not probed without a pidfd"
    printf '%s\n' 'set breakpoint pending on' 'set confirm off' 'break afx_report_same_process' 'commands' 'silent' \
        "shell kill -KILL $HPID; while [ -e /proc/$HPID ]; do sleep 0.05; done; touch '$gone'" 'continue' 'end' 'run' \
        >"$TMP/gdb.$BASHPID"
    LIMIT=60 run out err gdb -q -batch -nx -x "$TMP/gdb.$BASHPID" --args "$nopidfd" "$CLI" inspect "$HPID"
    cat out err
    [ -e "$gone" ] || die "inspect never reached its check of the PID"
    grep -q 'not probed: it exited or ran another program while it was read' out || die "probed a process that was gone"
}

property attack-probe-untrusted  p_attack_probe_untrusted
property attack-probe-mixed-ids  p_attack_probe_mixed_ids
property attack-probe-race       p_attack_probe_setuid_race
property attack-probe-jail       p_attack_probe_jail
property attack-probe-no-pidfd   p_attack_probe_no_pidfd
