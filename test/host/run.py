#!/usr/bin/env python3
"""Boot the emulated affected Debian 12 host three times, collect what
the operator's session in it saw (test/host/guest/check.sh), and judge it.

    run.py --kernel VMLINUZ --initrd INITRD --disk DISK.IMG --logdir DIR

Boots, on one disk that keeps its state from boot to boot:
  main     16 vCPUs, 2 sockets, 2 NUMA nodes: items 0, 1, 2, 3, 4 (the
           cpuset container) and 6, and /etc/ld.so.preload is written
  preload  the same host booted with that line: item 5
  isol     the same host booted with isolcpus= and nohz_full=: item 4

Every expectation is derived from the topology asked of qemu, glibc's
arena rule, and the counts of the root file system's own (fixed) glibc,
run in the guest beside the affected one; never copied from a run.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

# test/qemu/guest.py: the qemu driver both emulated hosts share (no
# bytecode cache left in the source tree).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "qemu"))
import guest  # noqa: E402

SUITE = "check-host"
# The same machine as check-vm's, with room for systemd, DPDK and a
# container; -cpu max: Debian's DPDK is built for SSE4.2 (-march=corei7).
MACHINE = guest.Machine(sockets=2, cores=8, memory_mb=3072, cpu="max")
SOCKETS = MACHINE.sockets
CPUS = MACHINE.cpus
HOUSEKEEPING = "0-1"
ISOLATED = "2-%d" % (CPUS - 1)
CONTAINER_CPUS = "4-5"         # check.sh's cpuset
SERVICE_CPUS = "0-7"           # afx-pinned.service's CPUAffinity=
# The bound check-monitor holds the unit file to (monitor/monitor.mk,
# TEXTFILE_EXPOSURE_MAX), here under the booted systemd.
TEXTFILE_EXPOSURE_MAX = float(os.environ.get("AFX_TEXTFILE_EXPOSURE_MAX") or
                              sys.exit("check-host: AFX_TEXTFILE_EXPOSURE_MAX is not set (make check-host sets it)"))
BOOT_TIMEOUT_S = {"main": 1500, "preload": 600, "isol": 600}

# What the dynamic loader does to read /etc/ld.so.preload and map one more
# library: the only system calls a single-threaded program may gain.  The
# readlink is ld.so's too: a path with a dynamic string token ($LIB) makes
# it find the program's origin (DL_DST_REQUIRED), whatever the token.
LOADER_CALLS = {"openat", "read", "pread64", "newfstatat", "fstat", "mmap",
                "mprotect", "munmap", "close", "readlink"}


def fixed_arenas(threads, online):
    """Arenas a fixed glibc ends with when `threads` threads besides the
    main one each hold one: main's plus one each, up to the limit."""
    return guest.glibc_arenas(threads, online)


# What the affected glibc gives many threads pinned to one CPU.
AFFECTED_ARENAS = guest.glibc_arenas(10 ** 6, 1)


# The fields that tell apart the lines of a tag check.sh prints more than once.
REPEATED = {"eal": ("how",), "ctr": ("how",), "dpdk-test": ("name",),
            "eal-service": ("enabled",), "omp": ("runtime", "how", "taskset")}


class Stage:
    """What one boot printed: AFX facts, AFXJSON documents, strace lines."""

    def __init__(self, text):
        self.facts = {}
        self.docs = {}
        self.traces = {}
        for kind, rest in guest.tagged_lines(text, ("AFX", "AFXJSON", "AFXTRACE")):
            if kind == "AFX":
                tag, _, words = rest.partition(" ")
                kv = guest.fields(words)
                # Tags that repeat are told apart by fields of their own
                # (eal how=plain: "eal/plain"); a line with none of them
                # keeps the bare tag.
                fields = REPEATED.get(tag, ())
                key = tag
                if any(f in kv for f in fields):
                    key = "/".join([tag] + [kv.get(f, "?") for f in fields])
                self.facts[key] = kv
                self.facts.setdefault("_raw_" + tag, []).append("AFX " + rest)
            elif kind == "AFXJSON":
                tag, rc, body = (rest.split(" ", 2) + ["", ""])[:3]
                try:
                    doc = json.loads(body)
                except ValueError as e:
                    doc = {"_invalid": "%s: %s" % (e, body[:200])}
                self.docs[tag] = (int(rc) if rc.lstrip("-").isdigit() else None, doc)
            else:
                tag, line = (rest.split(" ", 1) + [""])[:2]
                self.traces.setdefault(tag, []).append(line)

    def fact(self, key, field, default=None):
        return self.facts.get(key, {}).get(field, default)

    def num(self, key, field):
        v = self.fact(key, field)
        return int(v) if v is not None and v.lstrip("-").isdigit() else None


def boot(stage, args, extra_append=""):
    """One boot of the disk; check.sh's report comes on the second serial
    port (LOGDIR/results-STAGE.txt)."""
    append = "systemd.show_status=0 afx.stage=%s %s" % (stage, extra_append)
    return guest.boot(SUITE, MACHINE, stage, args.kernel, args.initrd, append,
                      BOOT_TIMEOUT_S[stage], args.logdir, disk=args.disk, ports=("results",))


def doc_fields(doc, **want):
    """The fields of a --json document that differ from what is wanted."""
    bad = []
    for k, v in want.items():
        if doc.get(k) != v:
            bad.append("%s=%r (want %r)" % (k, doc.get(k), v))
    return bad


def check_doc(r, name, stage, tag, rc, **want):
    if tag not in stage.docs:
        return r.check(name, False, "no %s line from the guest" % tag)
    got_rc, doc = stage.docs[tag]
    if "_invalid" in doc:
        return r.check(name, False, "not JSON: " + doc["_invalid"])
    bad = doc_fields(doc, **want)
    if got_rc != rc:
        bad.insert(0, "exit status %s (want %s)" % (got_rc, rc))
    return r.check(name, not bad, ", ".join(bad))


def eq(r, name, got, want, what="arenas"):
    return r.check(name, got is not None and got == want, "%s=%s (want %s)" % (what, got, want))


def judge_main(r, s):
    threads = s.num("pinned-fixed", "threads")
    want = fixed_arenas(threads or 0, CPUS)
    r.check("host: Debian 12, affected glibc diverted, 16 CPUs, 2 nodes",
            s.fact("glibc", "diversions") == "1" and s.fact("glibc", "online") == "0-%d" % (CPUS - 1)
            and s.fact("glibc", "nodes") == str(SOCKETS), " ".join(s.facts.get("_raw_glibc", ["no line"])))
    r.check("packages: dpkg -i of the project's .debs", s.fact("install-v1", "rc") == "0",
            "rc=%s" % s.fact("install-v1", "rc"))
    r.check("monitoring: the metrics timer is installed off, and systemd-analyze verify accepts its units",
            s.fact("textfile-units", "enabled") == "disabled" and s.fact("textfile-units", "active") == "inactive"
            and s.fact("textfile-units", "verify") == "0",
            " ".join(s.facts.get("_raw_textfile-units", ["no line"])))
    exposure = s.fact("textfile-security", "exposure")
    r.check("monitoring: systemd-analyze security scores the metrics service's sandbox at most %.1f" % TEXTFILE_EXPOSURE_MAX,
            exposure is not None and re.fullmatch(r"[0-9]+(\.[0-9]+)?", exposure) is not None
            and float(exposure) <= TEXTFILE_EXPOSURE_MAX,
            " ".join(s.facts.get("_raw_textfile-security", ["no line"])))
    r.check("monitoring: a hit service of another user's (uid 65534) is running",
            s.fact("nobody-start", "rc") == "0" and s.fact("nobody-start", "active") == "active"
            and s.fact("nobody-start", "uid") == "65534",
            " ".join(s.facts.get("_raw_nobody-start", ["no line"])))
    r.check("monitoring: the sandboxed service writes root's and the other user's hit series, the affected glibc "
            "and the library, and reads every process",
            s.fact("textfile-before", "result") == "success" and s.fact("textfile-before", "hit") == "1"
            and s.fact("textfile-before", "nobody") == "1" and s.fact("textfile-before", "unreadable") == "0"
            and s.fact("textfile-before", "affected") == "1" and s.fact("textfile-before", "library") == "1",
            " ".join(s.facts.get("_raw_textfile-before", ["no line"])))
    r.check("monitoring: after the rollout the service's hit series is gone",
            s.fact("textfile-after", "result") == "success" and s.fact("textfile-after", "hit") == "0",
            " ".join(s.facts.get("_raw_textfile-after", ["no line"])))
    check_doc(r, "probe (no --glibc) on the host: affected", s, "probe", 3,
              verdict="affected", online_cpus=CPUS, arenas_pinned=AFFECTED_ARENAS)
    # The oracle itself: the fixed glibc follows its rule here.
    eq(r, "oracle: the fixed glibc gives %d arenas to %s pinned threads" % (want, threads),
       s.num("pinned-fixed", "arenas"), want)

    # Item 1 (and 0) before the rollout.
    eq(r, "item 1 before: the pinned service's own count (affected)", s.num("inspect-before-self", "arenas"),
       AFFECTED_ARENAS)
    check_doc(r, "item 1 before: inspect says hit", s, "inspect-before", 3,
              verdict="hit", libarenafix=False, arenas_counted=AFFECTED_ARENAS, online_cpus=CPUS)
    judge_scan(r, s, "scan-before", "item 0 before", s.fact("inspect-before-self", "pid"), "hit", 3,
               unit="afx-pinned.service")
    r.check("item 0 before: inspect --all names the service's unit and prints the commands that fix it",
            s.fact("scan-text", "rc") == "3" and s.fact("scan-text", "row") == "1"
            and s.fact("scan-text", "enable") == "1" and s.fact("scan-text", "daemon-reload") == "1"
            and s.fact("scan-text", "restart") == "1",
            " ".join(s.facts.get("_raw_scan-text", ["no line"])))

    # Item 2: DPDK.
    eal_fixed = s.num("eal/fixed", "arenas")
    lcores = s.num("eal/fixed", "lcores")
    r.check("item 2: EAL program on the fixed glibc: %s lcores, more than 9 arenas" % lcores,
            eal_fixed is not None and eal_fixed > AFFECTED_ARENAS, "arenas=%s" % eal_fixed)
    eq(r, "item 2: EAL program, affected glibc, without arenafix", s.num("eal/plain", "arenas"), AFFECTED_ARENAS)
    eq(r, "item 2: EAL program, affected glibc, `arenafix CMD`", s.num("eal/arenafix", "arenas"), eal_fixed)
    eq(r, "item 2: EAL service, affected glibc", s.num("eal-service/no", "arenas"), AFFECTED_ARENAS)
    eq(r, "item 2: EAL service after `arenafix enable`", s.num("eal-service/yes", "arenas"), eal_fixed)
    dt = [k for k in s.facts if k.startswith("dpdk-test/")]
    if "dpdk-test" in s.facts and "missing" in s.facts["dpdk-test"]:
        r.skip("item 2: dpdk-test autotests", "dpdk-test is not in the guest")
    elif not dt:
        r.check("item 2: dpdk-test autotests ran", False, "no result line")
    for k in sorted(dt):
        f = s.facts[k]
        r.check("item 2: dpdk-test %s: same result with arenafix" % f["name"],
                f.get("plain_rc") == "0" and f.get("with_rc") == "0"
                and f.get("plain_ok") == f.get("with_ok") and f.get("plain_ok", "0") != "0",
                " ".join("%s=%s" % kv for kv in f.items()))

    # Item 3: OpenMP runtimes, threads bound by the runtime (taskset=no)
    # and a program narrowed to one CPU before it starts (taskset=yes).
    for rt in ("gomp", "llvm"):
        for narrow in ("no", "yes"):
            k = "omp/%s/%%s/%s" % (rt, narrow)
            what = "%s, %s" % (rt, "taskset -c 0" if narrow == "yes" else "OMP_PROC_BIND=close")
            fx = s.num(k % "fixed", "arenas")
            if k % "fixed" not in s.facts:
                r.check("item 3: %s: the program ran" % what, False, "no result")
                continue
            r.check("item 3: %s, fixed glibc: more than 9 arenas" % what,
                    fx is not None and fx > AFFECTED_ARENAS, "arenas=%s" % fx)
            plain = s.num(k % "plain", "arenas")
            if rt == "llvm" and narrow == "no":
                # libomp widens the creator's mask around clone and its
                # threads malloc before they pin themselves (raw system
                # call): its own binding never meets the bug.
                eq(r, "item 3: %s, affected glibc, without arenafix: not hit (libomp mallocs before it pins)"
                   % what, plain, fx)
            else:
                eq(r, "item 3: %s, affected glibc, without arenafix" % what, plain, AFFECTED_ARENAS)
            eq(r, "item 3: %s, affected glibc, with arenafix" % what, s.num(k % "arenafix", "arenas"), fx)

    # Item 1 after the rollout.
    r.check("item 1: arenafix enable", s.fact("enable", "rc") == "0", "rc=%s" % s.fact("enable", "rc"))
    eq(r, "item 1 after: the service's own count", s.num("inspect-enabled-self", "arenas"), want)
    check_doc(r, "item 1 after: inspect says fine and counts the fixed glibc's arenas", s, "inspect-enabled", 0,
              verdict="fine", libarenafix=True, arenas_counted=want)
    judge_scan(r, s, "scan-after", "item 0 after", s.fact("inspect-enabled-self", "pid"), "fine", None)
    r.check("item 1: the drop-in names a library that exists",
            s.fact("dropin-v1", "dropin") == "yes" and s.fact("dropin-v1", "exists") == "yes",
            " ".join(s.facts.get("_raw_dropin-v1", ["no line"])))
    r.check("item 1: arenafix disable", s.fact("disable", "rc") == "0")
    check_doc(r, "item 1 disabled: inspect says hit again", s, "inspect-disabled", 3,
              verdict="hit", arenas_counted=AFFECTED_ARENAS)
    r.check("item 1: disable leaves the unit as it was", s.fact("unit-after-disable", "same") == "yes")
    r.check("item 1: purge", s.fact("purge", "rc") == "0" and s.fact("purge", "left") == "0",
            " ".join(s.facts.get("_raw_purge", ["no line"])))
    r.check("item 1: purge leaves the unit as it was", s.fact("unit-after-purge", "same") == "yes")

    judge_container(r, s)

    # Item 6: upgrade while the enabled service runs.
    v1, v2 = s.fact("upgrade", "v1"), s.fact("upgrade", "v2")
    higher = v1 and v2 and subprocess.run(["dpkg", "--compare-versions", v2, "gt", v1]).returncode == 0
    r.check("item 6: the second build has the higher version (%s > %s)" % (v2, v1), bool(higher))
    check_doc(r, "item 6: before the upgrade: fine", s, "inspect-v1", 0, verdict="fine", arenas_counted=want)
    r.check("item 6: dpkg -i of the new version", s.fact("upgrade", "rc") == "0"
            and s.fact("upgrade", "version") == v2, " ".join(s.facts.get("_raw_upgrade", ["no line"])))
    r.check("item 6: the service ran on through the upgrade",
            s.fact("upgrade-running", "active") == "active" and s.fact("upgrade-running", "same_pid") == "yes",
            " ".join(s.facts.get("_raw_upgrade-running", ["no line"])))
    r.check("item 6: the drop-in still names a library that exists",
            s.fact("dropin-v2", "exists") == "yes", " ".join(s.facts.get("_raw_dropin-v2", ["no line"])))
    check_doc(r, "item 6: inspect of the process that ran through the upgrade", s, "inspect-upgraded", 0,
              verdict="fine", libarenafix=True, arenas_counted=want)
    check_doc(r, "item 6: restarted on the new version: fine", s, "inspect-v2", 0,
              verdict="fine", libarenafix=True, arenas_counted=want)
    r.check("item 7: enable of a misspelled unit: refused by systemd's answer, nothing written",
            s.fact("typo", "rc") == "1" and s.fact("typo", "refused") == "1" and s.fact("typo", "written") == "no",
            " ".join(s.facts.get("_raw_typo", ["no line"])))
    status = s.docs.get("status", (None, {}))
    listed = [d for d in status[1].get("dropins") or [] if d.get("unit") == "afx-pinned.service"]
    r.check("item 7: status lists the enabled service's drop-in, loaded by systemd",
            status[0] == 0 and len(listed) == 1
            and listed[0].get("path") == "/etc/systemd/system/afx-pinned.service.d/arenafix.conf"
            and listed[0].get("systemd") == "loaded, in effect" and status[1].get("verdict") == "affected",
            "exit %s: %s" % (status[0], json.dumps(status[1])[:400]))
    r.check("item 7: removing the package stops the metrics timer the operator turned on",
            s.fact("timer-removed", "before") == "active" and s.fact("timer-removed", "after") == "inactive",
            " ".join(s.facts.get("_raw_timer-removed", ["no line"])))
    r.check("item 7: dpkg -r warns about the drop-in and succeeds",
            s.fact("remove-warns", "rc") == "0" and (s.num("remove-warns", "warned") or 0) >= 1,
            " ".join(s.facts.get("_raw_remove-warns", ["no line"])))
    r.check("item 6: no maintainer script writes /etc/ld.so.preload",
            s.fact("preload-untouched", "before") == "absent" and s.fact("preload-untouched", "after") == "absent"
            and s.fact("preload-untouched", "scripts") == "0",
            " ".join(s.facts.get("_raw_preload-untouched", ["no line"])))


def judge_scan(r, s, tag, name, pid, verdict, rc, unit=None):
    if tag not in s.docs:
        return r.check(name + ": inspect --all", False, "no %s line" % tag)
    got_rc, doc = s.docs[tag]
    procs = doc.get("processes") if isinstance(doc, dict) else None
    summary = doc.get("summary", {}) if isinstance(doc, dict) else {}
    if not isinstance(procs, list):
        return r.check(name + ": inspect --all --json", False, "no process list: %s" % str(doc)[:200])
    mine = [p for p in procs if str(p.get("pid")) == str(pid)]
    r.check("%s: inspect --all lists the pinned service as %s" % (name, verdict),
            len(mine) == 1 and mine[0].get("verdict") == verdict,
            "pid %s: %s" % (pid, mine[0].get("verdict") if mine else "not listed"))
    if unit is not None:
        r.check("%s: inspect --all --json gives the process's unit, %s" % (name, unit),
                len(mine) == 1 and mine[0].get("unit") == unit,
                "unit=%s" % (mine[0].get("unit") if mine else "not listed"))
    r.check("%s: inspect --all exit status is its summary's" % name,
            got_rc == summary.get("exit_status") and (rc is None or got_rc == rc),
            "rc=%s summary=%s" % (got_rc, summary.get("exit_status")))
    r.check("%s: inspect --all ran nothing in other processes and read them all" % name,
            summary.get("unreadable", 0) == 0, "summary=%s" % json.dumps(summary)[:300])


def judge_container(r, s):
    threads = s.num("ctr/fixed", "threads")
    want = fixed_arenas(threads or 0, CPUS)
    r.check("item 4 (container): cgroup v2 cpuset of 2 CPUs",
            s.fact("ctr-cgroup", "cpus") == CONTAINER_CPUS and s.fact("ctr-install", "rc") == "0",
            " ".join(s.facts.get("_raw_ctr-cgroup", []) + s.facts.get("_raw_ctr-install", [])))
    eq(r, "item 4 (container): fixed glibc, limit from the host's %d online CPUs" % CPUS,
       s.num("ctr/fixed", "arenas"), want)
    r.check("item 4 (container): the program saw 2 allowed CPUs of 16 online",
            s.fact("ctr/fixed", "allowed") == "2" and s.fact("ctr/fixed", "online") == str(CPUS),
            " ".join("%s=%s" % kv for kv in s.facts.get("ctr/fixed", {}).items()))
    eq(r, "item 4 (container): affected glibc, without arenafix", s.num("ctr/plain", "arenas"), AFFECTED_ARENAS)
    eq(r, "item 4 (container): affected glibc, the container's own arenafix", s.num("ctr/arenafix", "arenas"), want)
    check_doc(r, "item 4 (container): probe inside: affected, 2 CPUs allowed of 16", s, "ctr-probe-inside", 3,
              verdict="affected", online_cpus=CPUS, affinity_list=CONTAINER_CPUS)
    check_doc(r, "item 4 (container): probe outside: affected, all CPUs", s, "ctr-probe-outside", 3,
              verdict="affected", online_cpus=CPUS, affinity_list="0-%d" % (CPUS - 1))
    eq(r, "item 4 (container): the containerised service's own count", s.num("ctr-service", "arenas"), want)
    check_doc(r, "item 4 (container): inspect from the host", s, "ctr-inspect-outside", 0,
              verdict="fine", libarenafix=True, arenas_counted=want)
    check_doc(r, "item 4 (container): inspect inside the container", s, "ctr-inspect-inside", 0,
              verdict="fine", libarenafix=True, arenas_counted=want)


def syscall(line):
    m = re.match(r"^([a-z_0-9]+)\(", line)
    return m.group(1) if m else None


def judge_preload(r, s, want):
    r.check("item 5: boot to multi-user with /etc/ld.so.preload",
            s.fact("boot", "state") == "running" and s.fact("boot", "multi_user") == "active"
            and s.fact("boot", "failed") == "0", " ".join(s.facts.get("_raw_boot", ["no line"])))
    r.check("item 5: the line is the $LIB form of docs/deploy.md",
            s.fact("boot", "line") == "/usr/$LIB/arenafix/libarenafix.so", "line=%s" % s.fact("boot", "line"))
    r.check("item 5: systemd (PID 1) runs with the library", (s.num("pid1", "libarenafix") or 0) >= 1)
    r.check("item 5: the service has no drop-in", s.fact("preload-dropin", "present") == "no")
    check_doc(r, "item 5: probe still sees the affected glibc under the host-wide preload", s, "probe-preload", 3,
              verdict="affected", arenas_pinned=AFFECTED_ARENAS)
    check_doc(r, "item 5: the pinned service is fixed without enable", s, "inspect-preload", 0,
              verdict="fine", libarenafix=True, arenas_counted=want)
    with_, without = s.traces.get("with", []), s.traces.get("without", [])
    if not with_ or not without:
        r.check("item 5: single-threaded program's system calls", False, "no strace output")
    else:
        rest = list(without)
        extra = []
        # arenafix's own read before main, and nothing else: the CPUs
        # online (open, reads and close of that file).  Its mask is read
        # only once a thread or a narrowing comes: any other call is
        # unexplained below.
        online_fd, own = None, []
        for line in with_:
            m = re.match(r'^openat\(AT_FDCWD, "/sys/devices/system/cpu/online", .*\) = (\d+)$', line)
            if online_fd is None and m:
                online_fd = m.group(1)
                own.append(line)
            elif online_fd and (line.startswith("read(%s," % online_fd)
                                or line.startswith("close(%s)" % online_fd)):
                own.append(line)
                if line.startswith("close("):
                    online_fd = ""
        r.check("item 5: arenafix reads the CPUs online before main, and not its mask",
                online_fd == "", "; ".join(own) or "no such read")
        for line in with_:
            if line in own:
                continue
            if line in rest:
                rest.remove(line)
            else:
                extra.append(line)
        # Lines that differ only in addresses match by name instead.
        names_without = [syscall(l) for l in rest]
        unexplained = []
        for line in extra:
            name = syscall(line)
            if name in names_without:
                names_without.remove(name)
                continue
            if name not in LOADER_CALLS:
                unexplained.append(line)
            elif name == "openat" and "libarenafix.so" not in line and "/etc/ld.so.preload" not in line:
                unexplained.append(line)
            elif name == "readlink" and not line.startswith('readlink("/proc/self/exe"'):
                unexplained.append(line)
        r.check("item 5: a single-threaded program makes no system call of arenafix's own",
                not unexplained, "; ".join(unexplained[:5]))
    check_doc(r, "item 5: line removed, service restarted: hit again (host restored)", s, "inspect-unpreloaded", 3,
              verdict="hit", libarenafix=False, arenas_counted=AFFECTED_ARENAS)
    r.check("item 5: /etc/ld.so.preload gone", s.fact("unpreloaded", "preload") == "absent")


def judge_isol(r, s):
    threads = s.num("isol-fixed", "threads")
    want = fixed_arenas(threads or 0, CPUS)
    r.check("item 4 (isolcpus): booted with isolcpus=%s nohz_full=%s" % (ISOLATED, ISOLATED),
            s.fact("isol", "isolated") == ISOLATED and s.fact("isol", "nohz_full") == ISOLATED
            and s.fact("isol", "init_affinity") == HOUSEKEEPING,
            " ".join(s.facts.get("_raw_isol", ["no line"])))
    check_doc(r, "item 4 (isolcpus): probe: affected, isolated CPUs listed", s, "isol-probe", 3,
              verdict="affected", isolated_list=ISOLATED, nohz_full_list=ISOLATED, online_cpus=CPUS)
    eq(r, "item 4 (isolcpus): fixed glibc on the housekeeping CPUs: 8 x %d online" % CPUS,
       s.num("isol-fixed", "arenas"), want)
    check_doc(r, "item 4 (isolcpus): housekeeping service before: hit", s, "isol-inspect-before", 3,
              verdict="hit", arenas_counted=AFFECTED_ARENAS, isolated_list=ISOLATED)
    r.check("item 4 (isolcpus): arenafix enable", s.fact("isol-enable", "rc") == "0")
    check_doc(r, "item 4 (isolcpus): housekeeping service after: fine", s, "isol-inspect-enabled", 0,
              verdict="fine", libarenafix=True, arenas_counted=want)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--initrd", required=True)
    ap.add_argument("--disk", required=True)
    ap.add_argument("--logdir", required=True)
    args = ap.parse_args()
    start = time.monotonic()
    r = guest.Results(SUITE)
    kernel_note = guest.report_kernel(SUITE, args.kernel)
    consoles = []
    plan = [("main", ""), ("preload", ""),
            ("isol", "isolcpus=%s nohz_full=%s" % (ISOLATED, ISOLATED))]
    main_stage = None
    for name, append in plan:
        b = boot(name, args, append)
        s = Stage(b.ports["results"])
        ran = "end" in s.facts and s.fact("end", "stage") == name
        r.check("%s boot: guest ran to the end (%d s)" % (name, b.seconds), b.finished and ran,
                "finished=%s end-line=%s" % (b.finished, ran))
        if name == "main":
            main_stage = s
            judge_main(r, s)
        elif name == "preload":
            threads = main_stage.num("pinned-fixed", "threads") if main_stage else None
            judge_preload(r, s, fixed_arenas(threads or 0, CPUS))
        else:
            judge_isol(r, s)
        if not (b.finished and ran):
            consoles.append(("console of the failed boot (%s), last 60 lines" % b.log,
                             "\n".join(b.console.splitlines()[-60:])))
    return r.close(start, consoles, [kernel_note])


if __name__ == "__main__":
    sys.exit(main())
