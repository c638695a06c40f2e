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

# attacker_sleeps [CMD...]: the attacker runs CMD... sleep 600 (CMD a
# wrapper that execs the rest: prlimit, unshare); its PID in $HPID once
# it is sleep.
attacker_sleeps() {
    setpriv --reuid="$AUID" --regid="$AGID" --clear-groups "$@" sleep 600 &
    HPID=$!
    APIDS+=("$HPID")
    local _
    for _ in $(seq 50); do [ "$(cat "/proc/$HPID/comm" 2>/dev/null)" = sleep ] && break; sleep 0.1; done
}

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
    await "the racing program's ready" grep -q '^ready' "$HOME_DIR/hostile.race"
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
    await "the shell's ready" grep -q '^ready' "$HOME_DIR/shell.out"
    inspect_while_it_turns_setuid out
    [ -e "$FLIPPED" ] || die "inspect never reached its jail, or the shell did not turn setuid"
    grep -q 'not probed: its credentials changed while it was read' out || die "probed across the change"
    ! grep -q 'probed as the process' out || die "probed across the change"
    exec 8>&-
}

# The jail, for a glibc that may run: its namespaces and root (chroot),
# the lower of its and root's resource limits, no capabilities, IDs no
# one else has (2147483646, no groups: a process of the target's user
# could otherwise write into the probe child once it runs), and one
# exec: the opened loader, "" and AT_EMPTY_PATH, with only the library's
# off switch in its environment, and the checked libc by descriptor.
p_attack_probe_jail() {
    attacker
    command -v strace >/dev/null || skip "no strace"
    local hard
    hard=$(ulimit -Hn)
    [ "$hard" != unlimited ] && [ "$hard" -gt 64 ] && [ "$(ulimit -Sn)" -gt 64 ] \
        || skip "root's own open-file limits are not a number above 64"
    # Its soft limit lower than root's, its hard one the same: each
    # taken from the lower side.
    attacker_sleeps prlimit --nofile=64:
    LIMIT=60 run out err strace -f -qq -v -e trace=execve,execveat,chroot,setresuid,setresgid,setgroups,prlimit64 \
        -o trace "$CLI" inspect "$HPID"
    cat out err
    grep -q 'probed as the process' out || die "not probed"
    grep -vE '^[0-9]+ +(execve|prlimit64)\(' trace | head -20
    # strace pads the result: "= 0" after blanks.
    grep -qE 'chroot\("\."\) += 0' trace || die "not in its root"
    grep -qE "setresuid\(2147483646, 2147483646, 2147483646\) += 0" trace || die "not the probe's own user ID"
    grep -qE "setresgid\(2147483646, 2147483646, 2147483646\) += 0" trace || die "not the probe's own group ID"
    grep -qE 'setgroups\(0, NULL\) += 0' trace || die "supplementary groups kept"
    ! grep -qE "setres[ug]id\($AUID|setres[ug]id\($AGID" trace || die "ran as the target's user"
    grep -qE "prlimit64\\(0, RLIMIT_NOFILE, \\{rlim_cur=64, rlim_max=$hard\\}, NULL\\) += 0" trace \
        || die "not the lower of its and root's open-file limits"
    grep -qE 'execveat\([0-9]+, "", \["ld.so", "--preload", "/proc/self/fd/[0-9]+", .*\], \["ARENAFIX_MODE=off"\], AT_EMPTY_PATH\) += 0' trace \
        || die "not the one exec of the opened loader, with the opened libc"
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

# The loader searches more than the checked directory for libc.so.6
# (glibc-hwcaps/*, tls/, x86_64/ below it): a subdirectory the attacker
# may write to (made by root, left the attacker's) gets the affected
# glibc's libc.so.6 once the process runs.  The probe is given the checked libc by descriptor
# and finds nothing by name: the process's fixed glibc is judged fixed
# (before: its libc was looked up by name, and the planted one answered).
p_attack_probe_planted_libc() {
    attacker
    have_affected || skip "no affected glibc (ARENAFIX_AFFECTED_GLIBC)"
    root_only_dir
    local lib=$SAFE/lib sys=/usr/lib/x86_64-linux-gnu
    [ -e $sys/libc.so.6 ] && [ -e /lib64/ld-linux-x86-64.so.2 ] || skip "no $sys/libc.so.6"
    mkdir -m 755 "$lib" && cp $sys/libc.so.6 /lib64/ld-linux-x86-64.so.2 "$lib/" || die "copies"
    mkdir "$lib/x86_64" && chown "$AUID:$AGID" "$lib/x86_64" || die "mkdir"
    setpriv --reuid="$AUID" --regid="$AGID" --clear-groups "$lib/ld-linux-x86-64.so.2" --library-path "$lib" \
        /bin/sleep 600 &
    HPID=$!
    APIDS+=("$HPID")
    await "$lib/libc.so.6 mapped in $HPID" grep -q "$lib/libc.so.6" "/proc/$HPID/maps"
    grep -q "$lib/libc.so.6" "/proc/$HPID/maps" || die "the process does not map $lib/libc.so.6"
    # Planted once the process runs: it maps the checked file.
    as_attacker cp "$AFFECTED/libc.so.6" "$lib/x86_64/libc.so.6" || die "plant"
    LIMIT=60 run out err "$CLI" inspect "$HPID"
    cat out err
    grep -q 'glibc: .*not affected (probed as the process' out || die "not the mapped libc that was probed"
}

# A trusted glibc whose probe fails (the process's own RLIMIT_NPROC of 1
# leaves the probe no thread) is not called fine: cannot tell, exit 5
# (before: fine, exit 0).
p_attack_probe_failed() {
    attacker
    attacker_sleeps prlimit --nproc=1:1
    LIMIT=60 run out err "$CLI" inspect "$HPID"
    cat out err
    grep -q 'probe failed' out || die "the probe did not fail: the test proves nothing"
    [ "$rc" = 5 ] || die "exit status $rc, not 5"
    grep -q "^process $HPID (sleep): cannot tell$" out || die "not 'cannot tell'"
}

# inspect --all runs nothing; it judges by the banner only the libc of a
# root-only file.  The attacker's copy of the system glibc, its banner
# made to say 2.39 (a fixed release), runs 4 threads: listed 'cannot
# tell' with exit status 5 (before: fine, "counts the online CPUs").
p_attack_scan_banner() {
    attacker
    local dir=$HOME_DIR/glibc sys=/usr/lib/x86_64-linux-gnu
    [ -e $sys/libc.so.6 ] || skip "no $sys/libc.so.6"
    mkdir "$dir" && cp $sys/libc.so.6 /lib64/ld-linux-x86-64.so.2 "$dir/" || die "copies"
    sed -i 's/release version 2\.3[4-8]/release version 2.39/' "$dir/libc.so.6"
    grep -aq 'release version 2.39' "$dir/libc.so.6" || skip "the system glibc is not 2.34 to 2.38"
    chown -R "$AUID:$AGID" "$dir"
    held_pipe
    setpriv --reuid="$AUID" --regid="$AGID" --clear-groups "$dir/ld-linux-x86-64.so.2" --library-path "$dir" \
        "$TEST_BIN/arenawait" 4 <"$IN" >"$HOME_DIR/arenawait.out" 2>&1 &
    HPID=$!
    APIDS+=("$HPID")
    await "arenawait's count" grep -q '^arenas=' "$HOME_DIR/arenawait.out"
    LIMIT=60 run out err "$CLI" inspect --all
    grep -E "^ *$HPID " out
    tail -2 out
    grep -qE "^ *$HPID  cannot tell " out || die "a banner the attacker wrote was believed"
    [ "$rc" -le 5 ] && [ "$rc" -ge 3 ] || die "exit status $rc"
    # The JSON agrees: its summary counts it, and its exit status is the
    # worst verdict listed (5 when nothing is hit or at risk).
    LIMIT=60 run out err "$CLI" inspect --all --json
    python3 "$HARD_SRC/../cli/scanjson.py" out >check || { cat check; die "inspect --all --json"; }
    grep -qP "^$HPID\tcannot tell\t" check || die "not 'cannot tell' in the JSON"
    exec 8>&-
}

# The root directory changes under inspect: a process in a user
# namespace of its own (its mounts still ours, its glibc root's) chroots
# into a tree of the attacker's, with the affected glibc's libc.so.6
# where the system's is and copies of the command where
# /proc/self/fd/N would be, while gdb holds inspect after its checks.
# The probe runs in the root that was checked, opened once: the
# process's fixed glibc is judged fixed (before: the jail opened the
# root again, and ran the attacker's tree).
p_attack_probe_root_switch() {
    attacker
    command -v gdb >/dev/null || skip "no gdb"
    have_affected || skip "no affected glibc (ARENAFIX_AFFECTED_GLIBC)"
    setpriv --reuid="$AUID" --regid="$AGID" --clear-groups unshare -U -r true 2>/dev/null \
        || skip "no unprivileged user namespaces"
    local fake=$HOME_DIR/fake sys=/usr/lib/x86_64-linux-gnu n
    mkdir -p "$fake$sys" "$fake/proc/self/fd" && cp "$AFFECTED/libc.so.6" "$fake$sys/libc.so.6" || die "fake root"
    for n in $(seq 3 40); do cp "$CLI" "$fake/proc/self/fd/$n"; done
    chown -R "$AUID:$AGID" "$fake"
    # shellcheck disable=SC2016
    setpriv --reuid="$AUID" --regid="$AGID" --clear-groups unshare -U -r \
        perl -e '$SIG{USR1} = sub { chroot($ARGV[0]) or die "chroot: $!" }; sleep 1 while 1' "$fake" &
    HPID=$!
    APIDS+=("$HPID")
    local _
    for _ in $(seq 50); do [ "$(cat "/proc/$HPID/comm" 2>/dev/null)" = perl ] && break; sleep 0.1; done
    local flip=$TMP/flip.$BASHPID switched=$TMP/switched.$BASHPID
    printf '%s\n' "kill -USR1 $HPID" \
        "for i in \$(seq 100); do [ \"\$(readlink /proc/$HPID/root)\" = '$fake' ] && { touch '$switched'; exit 0; }; sleep 0.05; done" \
        >"$flip"
    printf '%s\n' 'set breakpoint pending on' 'set confirm off' 'break afx_jail_open' 'commands' 'silent' \
        "shell sh $flip" 'continue' 'end' 'run' >"$TMP/gdb.$BASHPID"
    LIMIT=60 run out err gdb -q -batch -nx -x "$TMP/gdb.$BASHPID" --args "$CLI" inspect "$HPID"
    cat out err
    [ -e "$switched" ] || die "inspect never reached its jail, or the process did not change its root"
    grep -q 'glibc: .*not affected (probed as the process' out || die "not the checked root that was probed"
}

# A process root chrooted in our mount namespace (maps shows its files
# by our paths, under its root's), with no /etc at all, is probed, not
# refused as one whose files were renamed; but not while its /proc is
# not a procfs.
p_attack_probe_chroot() {
    attacker
    root_only_dir
    local root=$SAFE/chroot sys=/usr/lib/x86_64-linux-gnu
    [ -e $sys/libc.so.6 ] || skip "no $sys/libc.so.6"
    mkdir -p "$root$sys" "$root/lib64" "$root/bin" "$root/proc" && chmod -R 755 "$root" || die "mkdir"
    cp $sys/libc.so.6 "$root$sys/" && cp /lib64/ld-linux-x86-64.so.2 "$root/lib64/" && cp /bin/sleep "$root/bin/" \
        || die "copies"
    trap 'kill -KILL $HPID 2>/dev/null; umount -l "$SAFE/chroot/proc" 2>/dev/null; rm -rf "$SAFE"; attacker_gone' EXIT
    chroot --userspec="$AUID:$AGID" "$root" /bin/sleep 600 &
    HPID=$!
    APIDS+=("$HPID")
    await "$root$sys/libc.so.6 mapped in $HPID" grep -q "$root$sys/libc.so.6" "/proc/$HPID/maps"
    # Its /proc a plain directory: the probe's program, /proc/self/fd/N,
    # would be whatever is there.  Not run.
    LIMIT=60 run out err "$CLI" inspect "$HPID"
    cat out err
    grep -q "not executed: its /proc is not the kernel's" out || die "run with a /proc that is not procfs"
    mount -t proc proc "$root/proc" 2>/dev/null || skip "cannot mount a procfs for the chroot"
    LIMIT=60 run out err "$CLI" inspect "$HPID"
    cat out err
    grep -q 'glibc: .*not affected (probed as the process' out || die "a chrooted process was not probed"
}

# Mounts of its own: a process in a user and mount namespace of its own
# may mount anything over root's directories after the checks.  Not run.
# Its namespace makes it the attacker's rootless one, judged as a
# container is without running anything: the libc.so.6 it maps is the
# host's own file (device and inode, which no mount can fake), so the
# host's probe holds for it.
p_attack_probe_own_mounts() {
    attacker
    setpriv --reuid="$AUID" --regid="$AGID" --clear-groups unshare -U -r -m true 2>/dev/null \
        || skip "no unprivileged user namespaces"
    attacker_sleeps unshare -U -r -m
    LIMIT=60 run out err "$CLI" inspect "$HPID"
    cat out err
    grep -q "not executed: its mounts belong to another user namespace" out || die "run in mounts the attacker owns"
    grep -q "probed as the process" out && die "its glibc was run"
    grep -q "glibc: .*not affected (the host's glibc" out || die "not judged as the host's own libc.so.6"
    grep -q "container: .*rootless: in a user namespace of .* (uid $AUID)" out || die "not named the attacker's"
    [ "$rc" = 0 ] || die "exit status $rc, not 0"
}

property attack-probe-untrusted  p_attack_probe_untrusted
property attack-probe-mixed-ids  p_attack_probe_mixed_ids
property attack-probe-race       p_attack_probe_setuid_race
property attack-probe-jail       p_attack_probe_jail
property attack-probe-no-pidfd   p_attack_probe_no_pidfd
property attack-probe-planted-libc p_attack_probe_planted_libc
property attack-probe-failed     p_attack_probe_failed
property attack-probe-root-switch p_attack_probe_root_switch
property attack-probe-chroot     p_attack_probe_chroot
property attack-probe-own-mounts p_attack_probe_own_mounts
property attack-scan-banner      p_attack_scan_banner
