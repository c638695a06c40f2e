#!/bin/sh
# The emulated Debian host's side of `make check-host`: started by
# afx-check.service once the boot has settled, it plays the operator of
# docs/rollout.md and docs/deploy.md for the stage named on the kernel
# command line (afx.stage=main|preload|isol), prints what it saw, one
# line each, on the second serial port, then powers the host off.
#
# It judges nothing itself: each line carries the raw facts (exit
# statuses, arena counts, the commands' --json output) and the build
# host (test/host/run.py) compares them with what glibc's rules and the
# topology it asked qemu for imply.
#
#   AFX TAG key=value ...          facts
#   AFXJSON TAG RC JSON            a command's exit status and --json
#   AFXTRACE TAG LINE              one line of an strace log
set -u

CHK=/srv/afx-check
PROGS=$CHK/progs
FIXED=$CHK/fixed-glibc
OUT=/dev/ttyS1
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
# Every pinned workload: 32 threads, more than glibc's 8 + 1 arenas and
# fewer than 8 x any CPU count the host is booted with.
THREADS=32
# DPDK's EAL without hugepages, devices or shared state.
EAL="--no-huge --no-pci --no-shconf --log-level=error"

out() { printf '%s\n' "$*" >"$OUT"; }

# json TAG CMD...: the command's --json output on one line, with its
# exit status.
json() {
    tag=$1
    shift
    "$@" >/tmp/afx-json 2>/tmp/afx-stderr
    rc=$?
    j=$(tr -d '\n' </tmp/afx-json)
    [ -n "$j" ] || j=null
    out "AFXJSON $tag $rc $j"
    [ -s /tmp/afx-stderr ] && out "AFX $tag-stderr $(head -c 300 /tmp/afx-stderr | tr '\n' ' ')"
}

# The fixed glibc the root file system shipped with, kept aside by the
# diversion: the oracle every count is compared with.  A command prefix
# (no blanks in it), so that it also goes after taskset or into the
# container.
ON_FIXED="/lib64/ld-linux-x86-64.so.2 --library-path $FIXED"

# kv LINE: the key=value words of a program's one-line report.
kv() { printf '%s\n' "$1" | tr ' ' '\n' | grep '=' | tr '\n' ' '; }

mainpid() { systemctl show -p MainPID --value "$1"; }

# textfile TAG: run the packaged metrics service once, as its timer
# would, and report its result and what it wrote of afx-pinned.service
# (root's) and afx-nobody.service (another user's, when it runs).
PROM=/var/lib/prometheus/node-exporter/arenafix.prom
textfile() {
    systemctl start arenafix-textfile.service
    rc=$?
    out "AFX $1 rc=$rc result=$(systemctl show -p Result --value arenafix-textfile.service) $(
        printf 'hit=%s ' "$(grep -c '^arenafix_process_verdict{unit="afx-pinned[.]service",comm="pinnedd",verdict="hit"} 1$' $PROM)"
        printf 'nobody=%s ' "$(grep -c '^arenafix_process_verdict{unit="afx-nobody[.]service",comm="pinnedd",verdict="hit"} 1$' $PROM)"
        printf 'unreadable=%s ' "$(sed -n 's/^arenafix_processes{verdict="unreadable"} //p' $PROM)"
        printf 'affected=%s ' "$(grep -c '^arenafix_glibc_affected{.*} 1$' $PROM)"
        printf 'library=%s' "$(grep -c '^arenafix_library_installed 1$' $PROM)")"
}

# say FILE CMD...: what the operator saw, for the record (AFXSAY lines
# in the results file; not judged): the command, then FILE, its output.
say() {
    f=$1
    shift
    out "AFXSAY # $*"
    sed 's/^/AFXSAY /' "$f" >"$OUT"
}

# inspect_unit TAG UNIT: the command's view and the program's own count.
inspect_unit() {
    pid=$(mainpid "$2")
    json "$1" arenafix inspect --json "$pid"
    self=$(cat "/run/$2.ready" 2>/dev/null)
    out "AFX $1-self active=$(systemctl is-active "$2") pid=$pid $(kv "$self")"
}

restart() {
    rm -f "/run/$1.ready"
    systemctl restart "$1"
    out "AFX $2 rc=$? active=$(systemctl is-active "$1")"
}

# The unit and everything beside it that a rollout could change.
unit_state() {
    { cat "/etc/systemd/system/$1.service"
      find "/etc/systemd/system/$1.service.d" -type f -exec sh -c 'echo "== $1"; cat "$1"' sh {} \; 2>/dev/null
    } | sha256sum | cut -c1-16
}

preload_state() {
    if [ -e /etc/ld.so.preload ]; then sha256sum /etc/ld.so.preload | cut -c1-16; else echo absent; fi
}

# The library a drop-in's LD_PRELOAD names, $LIB expanded as ld.so does
# for this architecture, and whether it is there.
dropin_library() {
    f=/etc/systemd/system/$1.service.d/arenafix.conf
    lib=$(sed -n 's/.*LD_PRELOAD=\([^" ]*\).*/\1/p' "$f" 2>/dev/null | tr ':' '\n' | grep arenafix | head -n 1)
    exp=$(printf '%s' "$lib" | sed 's|\$LIB|lib/x86_64-linux-gnu|; s|\${LIB}|lib/x86_64-linux-gnu|')
    if [ -n "$exp" ] && [ -f "$exp" ]; then exists=yes; else exists=no; fi
    out "AFX $2 dropin=$([ -f "$f" ] && echo yes || echo no) library=$lib exists=$exists"
}

# ---- main: items 0, 1, 2, 3, 4 (cpuset container) and 6 -------------------
stage_main() {
    out "AFX glibc libc6=$(dpkg-query -W -f '${Version}' libc6) diversions=$(dpkg-divert --list '*libc.so.6*' | wc -l) online=$(cat /sys/devices/system/cpu/online) nodes=$(ls -d /sys/devices/system/node/node* | wc -l)"
    unit0=$(unit_state afx-pinned)
    preload0=$(preload_state)

    # 1. Install the packages, as an operator would.
    dpkg -i "$CHK"/debs/v1/*.deb >/tmp/dpkg.log 2>&1
    out "AFX install-v1 rc=$? version=$(dpkg-query -W -f '${Version}' libarenafix 2>/dev/null)"
    json probe arenafix probe --json
    # The metrics timer ships off; its service is a valid unit.
    out "AFX textfile-units enabled=$(systemctl is-enabled arenafix-textfile.timer 2>&1) active=$(systemctl is-active arenafix-textfile.timer 2>&1) verify=$(systemd-analyze verify --man=no arenafix-textfile.service arenafix-textfile.timer >/tmp/verify.log 2>&1; echo $?) $(head -c 300 /tmp/verify.log | tr '\n' ' ')"
    # Its sandbox, as systemd scores it.
    out "AFX textfile-security $(systemd-analyze security arenafix-textfile.service 2>&1 |
        sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) \([A-Z]*\).*/exposure=\1 level=\2/p')"
    mkdir -p ${PROM%/*}

    # 0. and 1.: before the rollout.
    restart afx-pinned restart-before
    inspect_unit inspect-before afx-pinned
    json scan-before arenafix inspect --all --json
    # The same workload as another user: the sandboxed scan must still
    # read it.
    systemd-run --quiet --unit=afx-nobody --uid=65534 --gid=65534 -p Type=notify -p NotifyAccess=main \
        -p CPUAffinity=0-7 "$PROGS/pinnedd" --threads $THREADS
    rc=$?
    out "AFX nobody-start rc=$rc active=$(systemctl is-active afx-nobody.service) uid=$(stat -c %u "/proc/$(mainpid afx-nobody.service)")"
    textfile textfile-before
    systemctl stop afx-nobody.service
    # The operator's view of the same scan: the service's row names its
    # unit, and the scan ends with the commands that fix it.
    arenafix inspect --all >/tmp/scan.txt 2>&1
    rc=$?
    say /tmp/scan.txt arenafix inspect --all
    pid=$(mainpid afx-pinned)
    out "AFX scan-text rc=$rc row=$(awk -v p="$pid" '$1 == p && / afx-pinned[.]service /' /tmp/scan.txt | wc -l) $(
        for c in 'arenafix enable afx-pinned.service' 'systemctl daemon-reload' 'systemctl restart afx-pinned.service'; do
            printf '%s=%s ' "$(echo "$c" | cut -d' ' -f2)" "$(grep -cxF "    $c" /tmp/scan.txt)"
        done)"
    # The oracle: the same workload, narrowed as the service is, on the
    # root file system's own (fixed) libc.so.6.
    out "AFX pinned-fixed $(kv "$(taskset -c 0-7 $ON_FIXED "$PROGS/pinnedd" --threads $THREADS --exit | tail -n 1)")"

    # 2. DPDK: a command, then the service.
    for how in plain fixed arenafix; do
        case $how in
        plain) r=$("$PROGS/ealloop" -l 0-15 $EAL 2>/dev/null | tail -n 1) ;;
        fixed) r=$($ON_FIXED "$PROGS/ealloop" -l 0-15 $EAL 2>/dev/null | tail -n 1) ;;
        arenafix) r=$(arenafix "$PROGS/ealloop" -l 0-15 $EAL 2>/dev/null | tail -n 1) ;;
        esac
        out "AFX eal how=$how $(kv "$r")"
    done
    systemctl start afx-eal
    out "AFX eal-service enabled=no $(kv "$(journalctl -u afx-eal -o cat | grep '^ealloop' | tail -n 1)")"
    arenafix enable afx-eal >/dev/null 2>&1
    systemctl daemon-reload
    systemctl start afx-eal
    out "AFX eal-service enabled=yes $(kv "$(journalctl -u afx-eal -o cat | grep '^ealloop' | tail -n 1)")"
    arenafix disable afx-eal >/dev/null 2>&1
    systemctl daemon-reload

    # DPDK's own autotests: the same result with and without the library.
    if command -v dpdk-test >/dev/null 2>&1; then
        grep -v '^#' "$PROGS/dpdk-autotests.txt" | while read -r name rest; do
            [ -n "$name" ] || continue
            DPDK_TEST=$name timeout 300 dpdk-test -l 0-15 $EAL </dev/null >/tmp/dt-plain.log 2>&1
            plain=$?
            DPDK_TEST=$name timeout 300 arenafix dpdk-test -l 0-15 $EAL </dev/null >/tmp/dt-with.log 2>&1
            with=$?
            out "AFX dpdk-test name=$name plain_rc=$plain with_rc=$with plain_ok=$(grep -c 'Test OK' /tmp/dt-plain.log) with_ok=$(grep -c 'Test OK' /tmp/dt-with.log)"
        done
    else
        out "AFX dpdk-test missing=dpdk-test"
    fi

    # 3. OpenMP, both runtimes: threads bound by the runtime, and a
    # program narrowed to one CPU before it starts (taskset).
    for rt in gomp llvm; do
        p=$PROGS/ompalloc-$rt
        [ -x "$p" ] || { out "AFX omp runtime=$rt missing=yes"; continue; }
        for how in plain fixed arenafix; do
            for narrow in no yes; do
                set --
                [ $narrow = yes ] && set -- taskset -c 0
                case $how in
                fixed) set -- "$@" $ON_FIXED ;;
                arenafix) set -- "$@" arenafix ;;
                esac
                r=$(OMP_PROC_BIND=close OMP_PLACES=cores "$@" "$p" $THREADS 2>/dev/null)
                out "AFX omp how=$how taskset=$narrow $(kv "$r")"
            done
        done
    done
    out "AFX verbose $(taskset -c 0-7 arenafix -v "$PROGS/pinnedd" --threads $THREADS --exit 2>&1 >/dev/null | head -n 1)"

    # 1. Roll out to the service, as docs/rollout.md says.
    arenafix enable afx-pinned >/tmp/enable.log 2>&1
    out "AFX enable rc=$?"
    say /tmp/enable.log arenafix enable afx-pinned
    systemctl daemon-reload
    restart afx-pinned restart-enabled
    textfile textfile-after
    inspect_unit inspect-enabled afx-pinned
    arenafix inspect "$(mainpid afx-pinned)" >/tmp/after.txt 2>&1
    say /tmp/after.txt arenafix inspect "$(mainpid afx-pinned)"
    json scan-after arenafix inspect --all --json
    dropin_library afx-pinned dropin-v1

    # 4. A container: cgroup v2 cpuset of 2 CPUs, new mount and PID
    # namespaces, its own root with its own copy of the packages.
    stage_container

    # Undo: disable, then purge; the unit is as it was.
    arenafix disable afx-pinned >/dev/null 2>&1
    out "AFX disable rc=$?"
    systemctl daemon-reload
    restart afx-pinned restart-disabled
    inspect_unit inspect-disabled afx-pinned
    out "AFX unit-after-disable same=$([ "$(unit_state afx-pinned)" = "$unit0" ] && echo yes || echo no)"
    dpkg --purge arenafix-bench arenafix libarenafix >/tmp/dpkg.log 2>&1
    rc=$?
    out "AFX purge rc=$rc left=$(dpkg-query -W -f '${db:Status-Abbrev}${Package}\n' libarenafix arenafix arenafix-bench 2>/dev/null | grep -c '^ii')"
    [ $rc -eq 0 ] || out "AFX purge-log $(tail -n 5 /tmp/dpkg.log | tr '\n' ' ')"
    out "AFX unit-after-purge same=$([ "$(unit_state afx-pinned)" = "$unit0" ] && echo yes || echo no)"

    # 6. Upgrade while the enabled service runs.
    dpkg -i "$CHK"/debs/v1/*.deb >/tmp/dpkg.log 2>&1
    arenafix enable afx-pinned >/dev/null 2>&1
    systemctl daemon-reload
    restart afx-pinned restart-v1
    inspect_unit inspect-v1 afx-pinned
    pid_before=$(mainpid afx-pinned)
    dpkg -i "$CHK"/debs/v2/*.deb >/tmp/dpkg.log 2>&1
    out "AFX upgrade rc=$? version=$(dpkg-query -W -f '${Version}' libarenafix) v1=$(cat "$CHK/debs/v1/VERSION") v2=$(cat "$CHK/debs/v2/VERSION")"
    out "AFX upgrade-running active=$(systemctl is-active afx-pinned) same_pid=$([ "$(mainpid afx-pinned)" = "$pid_before" ] && echo yes || echo no)"
    dropin_library afx-pinned dropin-v2
    inspect_unit inspect-upgraded afx-pinned
    restart afx-pinned restart-v2
    inspect_unit inspect-v2 afx-pinned

    # 7. A misspelled unit: refused by systemd's own answer, nothing
    # written.  status lists the enabled service; removing the packages
    # warns about its drop-in, and succeeds.
    arenafix enable afx-pinnd >/tmp/typo.log 2>&1
    rc=$?
    out "AFX typo rc=$rc refused=$(grep -c '^arenafix: Unit afx-pinnd.service not found. systemd has no such unit' /tmp/typo.log) written=$([ -e /etc/systemd/system/afx-pinnd.service.d ] && echo yes || echo no)"
    json status arenafix status --json
    say /tmp/typo.log arenafix enable afx-pinnd
    arenafix status >/tmp/status.txt 2>&1
    say /tmp/status.txt arenafix status
    # The operator turned the metrics timer on; it goes with the package.
    systemctl enable --now arenafix-textfile.timer >/dev/null 2>&1
    timer_on=$(systemctl is-active arenafix-textfile.timer)
    dpkg -r arenafix-bench arenafix libarenafix >/tmp/dpkg-r.log 2>&1
    rc=$?
    out "AFX timer-removed before=$timer_on after=$(systemctl is-active arenafix-textfile.timer)"
    say /tmp/dpkg-r.log dpkg -r arenafix-bench arenafix libarenafix
    out "AFX remove-warns rc=$rc warned=$(grep -c '^libarenafix: warning: /etc/systemd/system/afx-pinned.service.d/arenafix.conf still preloads' /tmp/dpkg-r.log)"
    dpkg -i "$CHK"/debs/v2/*.deb >/tmp/dpkg.log 2>&1
    # Reinstalled, a timer that was enabled is enabled again (not
    # started); off for the stages after this one.
    systemctl disable --now arenafix-textfile.timer >/dev/null 2>&1

    # Only libarenafix's prerm reads the file (to warn); none writes it.
    scripts=$(grep -l 'ld.so.preload' /var/lib/dpkg/info/libarenafix*.* /var/lib/dpkg/info/arenafix*.* 2>/dev/null | grep -v '\.list$' | grep -v '/libarenafix[^/]*\.prerm$' | wc -l)
    out "AFX preload-untouched before=$preload0 after=$(preload_state) scripts=$scripts"

    # 5. is the next boot's: take the service's own drop-in away, put the
    # line in /etc/ld.so.preload as docs/deploy.md writes it, reboot.
    arenafix disable afx-pinned >/dev/null 2>&1
    systemctl daemon-reload
    echo '/usr/$LIB/arenafix/libarenafix.so' >>/etc/ld.so.preload
    out "AFX preload-set line=$(cat /etc/ld.so.preload)"
}

stage_container() {
    ctr=/srv/ctr
    cg=/sys/fs/cgroup/afx-ctr
    echo +cpuset >/sys/fs/cgroup/cgroup.subtree_control
    mkdir -p $cg
    echo 4-5 >$cg/cpuset.cpus
    out "AFX ctr-cgroup cpus=$(cat $cg/cpuset.cpus.effective)"
    mkdir -p $ctr/srv/afx-check/debs
    cp "$CHK"/debs/v1/*.deb $ctr/srv/afx-check/debs/
    # enter CMD...: run CMD in the container, as a runtime starts one.
    # Like a runtime: the process joins the cgroup, then gets its own
    # mount and PID namespaces, /dev, a /proc of its own PID namespace, a
    # read-only /sys, and the container's root.
    enter() {
        sh -c 'echo $$ >'$cg'/cgroup.procs &&
            exec unshare --mount --pid --fork --propagation private sh -c "
                mount --bind /dev '$ctr'/dev && mount -t proc proc '$ctr'/proc &&
                mount -t sysfs -o ro sysfs '$ctr'/sys && exec chroot '$ctr' \"\$@\"" sh "$@"' sh "$@"
    }
    # (the container's shell expands the names: they are its files)
    enter sh -c 'dpkg -i /srv/afx-check/debs/libarenafix_*.deb /srv/afx-check/debs/arenafix_*.deb' >/tmp/ctr-dpkg.log 2>&1
    rc=$?
    out "AFX ctr-install rc=$rc"
    [ $rc -eq 0 ] || out "AFX ctr-install-log $(tail -n 5 /tmp/ctr-dpkg.log | tr '\n' ' ')"
    out "AFX ctr-affinity $(enter sh -c 'grep Cpus_allowed_list /proc/self/status | tr -d "\t " ')"
    for how in plain fixed arenafix; do
        case $how in
        plain) r=$(enter "$PROGS/pinnedd" --threads $THREADS --exit) ;;
        fixed) r=$(enter $ON_FIXED "$PROGS/pinnedd" --threads $THREADS --exit) ;;
        arenafix) r=$(enter arenafix "$PROGS/pinnedd" --threads $THREADS --exit) ;;
        esac
        out "AFX ctr how=$how $(kv "$(printf '%s\n' "$r" | tail -n 1)")"
    done
    json ctr-probe-inside enter arenafix probe --json
    json ctr-probe-outside arenafix probe --json
    # A long-running containerised service, seen from inside and from
    # the host.
    enter sh -c "arenafix $PROGS/pinnedd --threads $THREADS --ready-file /run/ctr.ready & sleep 1000" >/dev/null 2>&1 &
    i=0
    while [ ! -s $ctr/run/ctr.ready ] && [ $i -lt 300 ]; do sleep 1; i=$((i + 1)); done
    out "AFX ctr-service $(kv "$(cat $ctr/run/ctr.ready 2>/dev/null)")"
    hostpid=$(pgrep -f -n "pinnedd --threads $THREADS --ready-file /run/ctr.ready")
    json ctr-inspect-outside arenafix inspect --json "$hostpid"
    # Inside, the service is the PID the container's /proc shows.
    inner=$(sed -n 's/.*pid=\([0-9]*\).*/\1/p' $ctr/run/ctr.ready)
    nsenter -t "$hostpid" -p -m -r -w sh -c "arenafix inspect --json $inner" >/tmp/ctr-in.json 2>/dev/null
    rc=$?
    out "AFXJSON ctr-inspect-inside $rc $(tr -d '\n' </tmp/ctr-in.json)"
    pkill -f "ready-file /run/ctr.ready"
    pkill -f "sleep 1000"
}

# ---- preload: item 5, the line in /etc/ld.so.preload --------------------
stage_preload() {
    out "AFX boot state=$(systemctl is-system-running) multi_user=$(systemctl is-active multi-user.target) failed=$(systemctl --failed --no-legend | wc -l) line=$(cat /etc/ld.so.preload)"
    out "AFX pid1 libarenafix=$(grep -c libarenafix /proc/1/maps)"
    json probe-preload arenafix probe --json
    inspect_unit inspect-preload afx-pinned
    out "AFX preload-dropin present=$([ -e /etc/systemd/system/afx-pinned.service.d/arenafix.conf ] && echo yes || echo no)"
    # A single-threaded program: the system calls with and without it.
    strace -o /tmp/with.trace /bin/true
    cp /etc/ld.so.preload /tmp/ld.so.preload
    rm /etc/ld.so.preload
    strace -o /tmp/without.trace /bin/true
    while read -r l; do out "AFXTRACE with $l"; done </tmp/with.trace
    while read -r l; do out "AFXTRACE without $l"; done </tmp/without.trace
    # Removing the line restores the host.
    restart afx-pinned restart-unpreloaded
    inspect_unit inspect-unpreloaded afx-pinned
    out "AFX unpreloaded preload=$(preload_state)"
}

# ---- isol: item 4, isolcpus= and nohz_full=, a housekeeping service -----
stage_isol() {
    out "AFX isol isolated=$(cat /sys/devices/system/cpu/isolated) nohz_full=$(cat /sys/devices/system/cpu/nohz_full) online=$(cat /sys/devices/system/cpu/online) init_affinity=$(grep Cpus_allowed_list /proc/1/status | tr -d '\t ' | cut -d: -f2)"
    json isol-probe arenafix probe --json
    restart afx-house isol-restart-before
    inspect_unit isol-inspect-before afx-house
    out "AFX isol-fixed $(kv "$(taskset -c 0-1 $ON_FIXED "$PROGS/pinnedd" --threads $THREADS --exit | tail -n 1)")"
    arenafix enable afx-house >/dev/null 2>&1
    out "AFX isol-enable rc=$?"
    systemctl daemon-reload
    restart afx-house isol-restart-enabled
    inspect_unit isol-inspect-enabled afx-house
    arenafix disable afx-house >/dev/null 2>&1
    systemctl daemon-reload
}

stage=$(sed -n 's/.*afx\.stage=\([a-z]*\).*/\1/p' /proc/cmdline)
# Wait for the boot to settle: what an operator logs into.
state=$(systemctl is-system-running --wait 2>/dev/null)
out "AFX start stage=$stage state=$state"
case $stage in
main) stage_main ;;
preload) stage_preload ;;
isol) stage_isol ;;
*) out "AFX start unknown-stage=$stage" ;;
esac
out "AFX end stage=$stage"
sync
systemctl poweroff
