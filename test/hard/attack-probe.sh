# Sourced by test/hard/run.sh after attack-inspect.sh (whose attacker,
# hostile and on_terminal it uses): what `arenafix inspect PID`, run as
# root, executes of a process a local attacker controls, and as whom.

# Item: inspect ran the ld.so the process mapped, as root.  Now its code
# runs with the process's IDs, no capability, no_new_privs, a system
# call filter, its own session and no environment but the library's off
# switch (ARENAFIX_MODE=off: a host-wide preload stays out); it cannot create a
# file or a process.
p_attack_probe_jail() {
    attacker
    cp "$HOME_DIR/hostile" "$HOME_DIR/ld-linux-x86-64.so.2"
    cp "$HOME_DIR/hostile" "$HOME_DIR/libc.so.6"
    chown "$AUID:$AGID" "$HOME_DIR"/*
    hostile "$HOME_DIR/ld-linux-x86-64.so.2" "$HOME_DIR/libc.so.6"
    on_terminal out "$CLI" inspect "$HPID"
    cat out
    [ "$rc" -le 4 ] || die "inspect: exit status $rc"
    local ids="$AUID/$AUID/$AUID/$AUID" gids="$AGID/$AGID/$AGID/$AGID"
    grep -q "jail uid=$ids gid=$gids capeff=0000000000000000 capbnd=0000000000000000 nnp=1 seccomp=2 sid=own env=ARENAFIX_MODE=off tty=no create=no fork=no" out \
        || die "the process's ld.so ran with more than the process has"
    [ ! -e "$HOME_DIR/created-by-the-probe" ] || { ls -l "$HOME_DIR"; die "the probe created a file"; }
    [ -z "$(strays)" ] || die "processes left: $(strays)"
}

# Its ld.so never returns: inspect gives up after the deadline and
# leaves nothing running.
p_attack_probe_deadline() {
    attacker
    cp "$HOME_DIR/hostile" "$HOME_DIR/ld-linux-x86-64.so.2"
    cp "$HOME_DIR/hostile" "$HOME_DIR/libc.so.6"
    touch "$HOME_DIR/hang"
    chown "$AUID:$AGID" "$HOME_DIR"/*
    hostile "$HOME_DIR/ld-linux-x86-64.so.2" "$HOME_DIR/libc.so.6"
    local start=$SECONDS
    LIMIT=60 run out err "$CLI" inspect "$HPID"
    cat out err
    [ "$rc" -le 4 ] || die "inspect: exit status $rc"
    [ $((SECONDS - start)) -le 15 ] || die "took $((SECONDS - start)) s"
    grep -q 'did not finish within 10 s' out || die "no word of the deadline"
    sleep 0.5
    [ -z "$(strays)" ] || die "processes left: $(strays)"
}

property attack-probe-jail      p_attack_probe_jail
property attack-probe-deadline  p_attack_probe_deadline
