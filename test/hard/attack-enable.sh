# Sourced by run.sh: `arenafix enable` and `disable`, run as root, against
# the owner of a --root tree (a build user) who plants links, FIFOs and
# libraries in it, and races root while it works.  Each property builds
# its own scene under $TMP: the tree (owned by an unprivileged uid that
# has no account), and a stand-in for the host's own files outside it
# (root's), which must come out untouched.  Nothing of the real host is
# ever touched.  Needs root; skipped otherwise.
# shellcheck shell=bash
# shellcheck disable=SC2154  # rc: set by run.sh's run()

AE_UID=64127        # the build user: no account, owns only what is made here
AE_TEAM=64128       # a group of others, the build user not among them: no account
AE_ROUNDS=${AE_ROUNDS:-100}     # enable + disable runs against the racing loop

ae_as_user() { setpriv --reuid=$AE_UID --regid=$AE_UID --clear-groups "$@"; }

# Stop the attacker's loops (and what they run) and wait for them.
ae_stop() {
    local p
    for p in $AE_PIDS; do
        pkill -KILL -P "$p" 2>/dev/null
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    AE_PIDS=""
}

# The scene: $AE (root's), $HOST (a stand-in for root's real /), $H (the
# build user's home) and $T (her tree), the command $CLI and a library
# root may name in a service, $AE/lib/libarenafix.so.
ae_setup() {
    [ "$(id -u)" = 0 ] || skip "needs root: the attacker is another uid, the victim root"
    command -v setpriv >/dev/null || skip "setpriv not installed (util-linux)"
    CLI=${AFX_CLI:-$HARD/../cli/arenafix}
    [ -x "$CLI" ] || skip "$CLI not built (make build/cli/arenafix)"
    AE=$(mktemp -d "$TMP/attack-enable.XXXXXX") || die "mktemp"
    AE_PIDS=""
    trap 'ae_stop; rm -rf "$AE" || { sleep 1; rm -rf "$AE"; }' EXIT
    chmod 755 "$AE"
    umask 022
    HOST=$AE/host H=$AE/home/builder T=$AE/home/builder/tree
    mkdir -p "$HOST/etc/systemd/system/ssh.service.d" "$HOST/lib/systemd/system" "$AE/lib" "$AE/home"
    printf '[Service]\nExecStart=/usr/sbin/sshd -D\n' >"$HOST/lib/systemd/system/ssh.service"
    install -m 644 "$LIB" "$AE/lib/libarenafix.so"
    export ARENAFIX_LIBRARY=$AE/lib/libarenafix.so
    mkdir "$H" && chown $AE_UID:$AE_UID "$H"
    ae_as_user mkdir -p "$T/etc/systemd/system" "$T/lib/systemd/system" || die "cannot make the tree as uid $AE_UID"
    ae_as_user sh -c "printf '[Service]\nEnvironment=LD_PRELOAD=/home/builder/evil.so\nExecStart=/bin/true\n' \
        >'$T/lib/systemd/system/web.service'"
}

# Every file of the host stand-in: name, type, owner, mode, contents.
ae_host_files() {
    (cd "$HOST" && find . -mindepth 1 -printf '%p %y %U %m\n' | sort && find . -type f -exec cat {} +)
}
# The host stand-in holds exactly what it held before ($1).
ae_host_untouched() {
    [ "$(ae_host_files)" = "$1" ] || { diff <(echo "$1") <(ae_host_files); die "$2: files outside the tree changed"; }
}

# UNIT.d planted as a link to the host's real drop-in directory: enable
# must not write there (0.1.0 put the tree's LD_PRELOAD into the host's
# ssh.service), disable must not remove through it.
p_ae_dir_link() {
    ae_setup
    local sshd=$HOST/etc/systemd/system/ssh.service.d before
    before=$(ae_host_files)
    ae_as_user ln -s "$sshd" "$T/etc/systemd/system/web.service.d"
    run out err "$CLI" enable --root "$T" web
    [ "$rc" -eq 1 ] || { cat out err; die "enable through a planted link: exit $rc, want 1"; }
    grep -q 'web.service.d: a symlink' err || { cat err; die "enable did not name the link"; }
    ae_host_untouched "$before" "enable"
    printf '# Written by arenafix enable\n[Service]\n' >"$sshd/arenafix.conf"
    run out err "$CLI" disable --root "$T" web
    [ "$rc" -eq 1 ] || { cat out err; die "disable through a planted link: exit $rc, want 1"; }
    [ -e "$sshd/arenafix.conf" ] || die "disable removed the host's drop-in through the link"
    rm "$sshd/arenafix.conf"
    # Higher up: etc itself a link to the host's /etc.
    ae_as_user rm "$T/etc/systemd/system/web.service.d"
    ae_as_user mv "$T/etc" "$T/etc.real"
    ae_as_user ln -s "$HOST/etc" "$T/etc"
    run out err "$CLI" enable --root "$T" web
    [ "$rc" -eq 1 ] || { cat out err; die "enable through a linked etc: exit $rc, want 1"; }
    ae_host_untouched "$before" "enable through a linked etc"
}

# Links where the file goes: the fixed temporary name of 0.1.0 (root
# then truncated any file, /etc/ld.so.preload for one), and the drop-in
# itself.
p_ae_file_link() {
    ae_setup
    local d=$T/etc/systemd/system/web.service.d victim=$HOST/etc/ld.so.preload
    echo original >"$victim"
    ae_as_user mkdir "$d"
    ae_as_user ln -s "$victim" "$d/arenafix.conf.new"
    run out err "$CLI" enable --root "$T" web
    need_rc0 "enable beside a planted link" err
    [ "$(cat "$victim")" = original ] || die "enable wrote through arenafix.conf.new"
    local left
    left=$(find "$d" -name '.arenafix*')
    [ -z "$left" ] || die "a temporary file was left behind: $left"
    ae_as_user rm "$d/arenafix.conf"
    ae_as_user ln -s "$victim" "$d/arenafix.conf"
    for cmd in enable disable; do
        run out err "$CLI" $cmd --root "$T" web
        [ "$rc" -eq 1 ] || { cat out err; die "$cmd with arenafix.conf a link: exit $rc, want 1"; }
        [ "$(cat "$victim")" = original ] || die "$cmd wrote through arenafix.conf"
    done
    [ -L "$d/arenafix.conf" ] || die "disable removed the planted link (not arenafix's)"
}

# The build user swaps UNIT.d between a directory, nothing and a link to
# the host's directory while root enables and disables again and again.
p_ae_race() {
    ae_setup
    local sshd=$HOST/etc/systemd/system/ssh.service.d sys=$T/etc/systemd/system
    printf '# Written by arenafix enable\n[Service]\n' >"$sshd/arenafix.conf"
    local before
    before=$(ae_host_files)
    # Root's directories (with a drop-in in them) are moved aside, the
    # user's own removed: the loop never builds up.
    ae_as_user sh -c "cd '$sys' || exit; i=0
        while :; do
            ln -s '$sshd' web.service.d 2>/dev/null; rm -f web.service.d 2>/dev/null
            mkdir web.service.d 2>/dev/null
            rmdir web.service.d 2>/dev/null || { i=\$((i + 1)); mv -T web.service.d old.\$i 2>/dev/null; }
        done" &
    AE_PIDS=$!
    local i wrote=0
    for ((i = 0; i < AE_ROUNDS; i++)); do
        LIMIT=10 t "$CLI" enable --root "$T" web >/dev/null 2>&1 && wrote=$((wrote + 1))
        LIMIT=10 t "$CLI" disable --root "$T" web >/dev/null 2>&1
    done
    ae_stop
    echo "$AE_ROUNDS rounds against the swapping loop; enable wrote $wrote times, inside the tree"
    ae_host_untouched "$before" "the race"
}

# The tree's path itself: its owner turns it into a link to / (here,
# the stand-in) between two runs, reached directly or through a link of
# root's; a tree in a directory anyone may write; a directory on the way
# to the drop-in that anyone may write.
p_ae_root_swap() {
    ae_setup
    local before
    before=$(ae_host_files)
    ae_as_user mv "$T" "$T.real"
    ae_as_user ln -s "$HOST" "$T"
    run out err "$CLI" enable --root "$T" ssh
    [ "$rc" -eq 1 ] || { cat out err; die "--root through the owner's link: exit $rc, want 1"; }
    grep -q 'give the tree.s real path' err || { cat err; die "no reason given"; }
    # The same through root's own link to her tree (/srv/image -> ~builder/tree).
    ln -s "$T" "$AE/image"
    run out err "$CLI" enable --root "$AE/image" ssh
    [ "$rc" -eq 1 ] || { cat out err; die "--root through root's link to the owner's link: exit $rc, want 1"; }
    ae_host_untouched "$before" "a swapped --root"
    mkdir -m 777 "$AE/open"
    ae_as_user mkdir -p "$AE/open/tree/etc/systemd/system"
    run out err "$CLI" enable --root "$AE/open/tree" web
    [ "$rc" -eq 1 ] || { cat out err; die "a tree in a world-writable directory: exit $rc, want 1"; }
    grep -q 'may be written by its group or others' err || { cat err; die "no reason given"; }
    # Inside the tree, a directory on the way that others may write to.
    ae_as_user chmod 777 "$T.real/etc/systemd"
    ae_as_user rm "$T" && ae_as_user mv "$T.real" "$T"
    run out err "$CLI" enable --root "$T" web
    [ "$rc" -eq 1 ] || { cat out err; die "a world-writable directory in the tree: exit $rc, want 1"; }
    grep -q 'etc/systemd may be written by its group or others' err || { cat err; die "no reason given"; }
}

# Writable by a group counts as by others: a directory of the tree's
# (etc/systemd) or above it that a group may write to, even root's own,
# is refused, as 0777 is.
p_ae_group_writable() {
    ae_setup
    chgrp $AE_TEAM "$T/etc/systemd" && chmod 775 "$T/etc/systemd"
    run out err "$CLI" enable --root "$T" web
    [ "$rc" -eq 1 ] || { cat out err; die "etc/systemd in the tree writable by a group: exit $rc, want 1"; }
    grep -q 'etc/systemd may be written by its group or others (mode 0775)' err || { cat err; die "no reason given"; }
    [ ! -e "$T/etc/systemd/system/web.service.d" ] || die "a drop-in directory was made under it"
    chmod 755 "$T/etc/systemd"
    mkdir -m 775 "$AE/team" && chgrp $AE_TEAM "$AE/team"
    ae_as_user mkdir -p "$H/team-tree/etc/systemd/system" && mv "$H/team-tree" "$AE/team/tree"
    run out err "$CLI" enable --root "$AE/team/tree" web
    [ "$rc" -eq 1 ] || { cat out err; die "a tree in root's directory writable by a group: exit $rc, want 1"; }
    grep -q "$AE/team may be written by its group or others (mode 0775)" err || { cat err; die "no reason given"; }
    run out err "$CLI" enable --root "$T" web
    need_rc0 "the same tree, no group may write" err
}

# Sticky is no excuse where the drop-in goes (others may still add a
# unit beside it), nor for another user's link in a sticky directory
# such as /tmp: she may point it elsewhere (here: root's own tree, the
# host stand-in) between two runs.  Root's own link there is followed.
p_ae_sticky() {
    ae_setup
    local before
    before=$(ae_host_files)
    ae_as_user chmod 1777 "$T/etc/systemd/system"
    run out err "$CLI" enable --root "$T" web
    [ "$rc" -eq 1 ] || { cat out err; die "a sticky world-writable etc/systemd/system: exit $rc, want 1"; }
    grep -q 'etc/systemd/system may be written by its group or others (mode 1777)' err \
        || { cat err; die "no reason given"; }
    [ ! -e "$T/etc/systemd/system/web.service.d" ] || die "a drop-in directory was made in it"
    ae_as_user chmod 755 "$T/etc/systemd/system"
    mkdir -m 1777 "$AE/tmp"
    ae_as_user ln -s "$HOST" "$AE/tmp/image"
    run out err "$CLI" enable --root "$AE/tmp/image" ssh
    [ "$rc" -eq 1 ] || { cat out err; die "--root through another user's link in a sticky directory: exit $rc, want 1"; }
    grep -q "the symlink $AE/tmp/image on the way is owned by uid $AE_UID" err || { cat err; die "no reason given"; }
    ae_host_untouched "$before" "--root through another user's link in a sticky directory"
    ln -s "$T" "$AE/tmp/roots"
    run out err "$CLI" enable --root "$AE/tmp/roots" web
    need_rc0 "--root through root's own link in a sticky directory" err
    [ -f "$T/etc/systemd/system/web.service.d/arenafix.conf" ] || die "no drop-in in the tree"
}

# The library root names in a service: a user's copy, or root's own file
# in a directory the user may write to, is refused; so is the library of
# a build tree the user owns, and root's own file or directory that the
# user's group may write to.
p_ae_library() {
    ae_setup
    # The user's copies are put there by root and given to the user: the
    # checkout they come from need not be readable by the user (a
    # mktemp -d clone is mode 0700).
    install -o $AE_UID -g $AE_UID -m 644 "$LIB" "$H/libarenafix.so"
    ARENAFIX_LIBRARY=$H/libarenafix.so run out err "$CLI" enable --root "$T" web
    [ "$rc" -eq 1 ] || { cat out err; die "a user's ARENAFIX_LIBRARY: exit $rc, want 1"; }
    grep -q "builder: is a directory not owned by root" err || { cat err; die "no reason given"; }
    mkdir "$AE/shared" && chown $AE_UID "$AE/shared" && install -m 644 "$LIB" "$AE/shared/libarenafix.so"
    ARENAFIX_LIBRARY=$AE/shared/libarenafix.so run out err "$CLI" enable --root "$T" web
    [ "$rc" -eq 1 ] || { cat out err; die "root's library in a user's directory: exit $rc, want 1"; }
    ae_as_user mkdir -p "$H/src/build/cli" "$H/src/shim"
    install -o $AE_UID -g $AE_UID -m 755 "$CLI" "$H/src/build/cli/arenafix"
    install -o $AE_UID -g $AE_UID -m 644 "$LIB" "$H/src/shim/libarenafix.so"
    run out err env -u ARENAFIX_LIBRARY "$H/src/build/cli/arenafix" enable --root "$T" web
    [ "$rc" -eq 1 ] || { cat out err; die "a user's build tree library: exit $rc, want 1"; }
    mkdir "$AE/lib664" && install -g $AE_UID -m 664 "$LIB" "$AE/lib664/libarenafix.so"
    ARENAFIX_LIBRARY=$AE/lib664/libarenafix.so run out err "$CLI" enable --root "$T" web
    [ "$rc" -eq 1 ] || { cat out err; die "root's library, mode 0664 (the user's group): exit $rc, want 1"; }
    grep -q "lib664/libarenafix.so: is writable by its group or others" err || { cat err; die "no reason given"; }
    mkdir -m 775 "$AE/lib775" && chgrp $AE_UID "$AE/lib775" && install -m 644 "$LIB" "$AE/lib775/libarenafix.so"
    ARENAFIX_LIBRARY=$AE/lib775/libarenafix.so run out err "$CLI" enable --root "$T" web
    [ "$rc" -eq 1 ] || { cat out err; die "root's library in root's directory, mode 0775 (the user's group): exit $rc, want 1"; }
    grep -q "lib775: is a directory its group or others may write to" err || { cat err; die "no reason given"; }
    [ ! -e "$T/etc/systemd/system/web.service.d/arenafix.conf" ] || die "a drop-in was written"
    run out err "$CLI" enable --root "$T" web
    need_rc0 "root's library" err
}

# umask 000 must not give the build user (or anyone) a drop-in to edit.
p_ae_mode() {
    ae_setup
    mkdir -p "$AE/rootree/etc/systemd/system" "$AE/rootree/lib/systemd/system"
    printf '[Service]\nExecStart=/bin/true\n' >"$AE/rootree/lib/systemd/system/web.service"
    run out err sh -c "umask 000 && exec '$CLI' enable --root '$AE/rootree' web"
    need_rc0 "enable" err
    local f=$AE/rootree/etc/systemd/system/web.service.d/arenafix.conf
    [ "$(stat -c %a "$f")" = 644 ] || die "drop-in mode $(stat -c %a "$f"), want 644"
    [ "$(stat -c %a "${f%/*}")" = 755 ] || die "directory mode $(stat -c %a "${f%/*}"), want 755"
    ae_as_user sh -c "echo ExecStartPre=/bin/true >>'$f'" 2>/dev/null && die "another user could edit the drop-in"
    true
}

# What enable reads: a FIFO does not hang it (systemd skips one among
# the drop-ins; one behind a link is refused), a link to a device or to
# a root-only file outside the tree is not followed out of the tree.
p_ae_reads() {
    ae_setup
    local d=$T/etc/systemd/system/web.service.d secret=$HOST/etc/secret.conf
    printf '[Service]\nEnvironment=LD_PRELOAD=/SECRET.so\n' >"$secret"
    chmod 600 "$secret"
    ae_as_user mkdir "$d"
    ae_as_user mkfifo "$d/fifo" && ae_as_user ln -s fifo "$d/10-fifo.conf"
    LIMIT=20 run out err "$CLI" enable --dry-run --root "$T" web
    [ "$rc" -eq 1 ] || { cat out err; die "a drop-in linked to a FIFO: exit $rc, want 1 (124: it hung)"; }
    grep -q '10-fifo.conf: not a regular file' err || { cat err; die "no reason given"; }
    ae_as_user rm "$d/10-fifo.conf" && ae_as_user mv "$d/fifo" "$d/10-fifo.conf"
    LIMIT=20 run out err "$CLI" enable --dry-run --root "$T" web
    need_rc0 "a FIFO among the drop-ins (skipped, as systemd does)" err
    ae_as_user mkfifo "$T/lib/systemd/system/fifo.service"
    LIMIT=20 run out err "$CLI" enable --dry-run --root "$T" fifo
    [ "$rc" -eq 1 ] || { cat out err; die "a FIFO unit file: exit $rc, want 1 (124: it hung)"; }
    ae_as_user ln -s /dev/zero "$d/10-zero.conf"
    ae_as_user ln -s "$secret" "$d/20-secret.conf"
    ae_as_user ln -s "../../../../../../../../..$secret" "$d/30-secret.conf"
    LIMIT=20 run out err "$CLI" enable --root "$T" web
    need_rc0 "enable with links out of the tree" err
    ! grep -r SECRET "$T" out err || die "enable read a file outside the tree"
}

property attack-enable-dir-link   p_ae_dir_link
property attack-enable-file-link  p_ae_file_link
property attack-enable-race       p_ae_race
property attack-enable-root-swap  p_ae_root_swap
property attack-enable-group-writable p_ae_group_writable
property attack-enable-sticky     p_ae_sticky
property attack-enable-library    p_ae_library
property attack-enable-mode       p_ae_mode
property attack-enable-reads      p_ae_reads
