#!/usr/bin/env python3
"""Boot the emulated multi-socket host, collect what the guest measured,
and check it against what the asked-for topology implies.

    run.py --kernel VMLINUZ --config CONFIG --initrd INITRD --logdir DIR

Two boots: "main" (16 vCPUs in 2 sockets and 2 NUMA nodes: items 1, 2, 3
and 5) and "isol" (the same host with isolcpus: item 4).  The guest prints
"AFXVM <item> key=value ..." lines on the serial console (test/vm/init);
every expectation below is computed from the topology constants, never
copied from a run.  Any mismatch, a missing line or a guest that does not
finish fails the run and shows the guest's console.
"""

import argparse
import json
import os
import re
import sys
import time

# test/qemu/guest.py: the qemu driver both emulated hosts share (no
# bytecode cache left in the source tree).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "qemu"))
import guest  # noqa: E402

SUITE = "check-vm"

# ---- the host we ask qemu for -------------------------------------------
MACHINE = guest.Machine(sockets=2, cores=8, memory_mb=1024)
SOCKETS = MACHINE.sockets
CORES_PER_SOCKET = MACHINE.cores
CPUS = MACHINE.cpus
NODES = MACHINE.nodes      # one NUMA node per socket
HOUSEKEEPING = 2           # isol boot: CPUs 0-1 keep the scheduler
OFFLINE_CPU = 5            # item 5 unplugs this one (cpu0 cannot go)
THREADS = 4 * CPUS         # item 2: 64 threads, spread one per CPU
MANY = 8 * CPUS + 32       # more threads than any arena limit here

BOOT_TIMEOUT_S = 300       # TCG on a busy 2-CPU host: generous



def sched_domains(cpus):
    """The scheduler domain levels a CPU gets when the CPUs it balances
    with are `cpus`: MC within its package, NUMA across nodes (a level
    spanning no more than the one below it is dropped; no SMT: one thread
    per core)."""
    packages = {cpu // CORES_PER_SOCKET for cpu in cpus}
    levels = []
    if len(cpus) > 1:
        levels.append("MC")
    if len(packages) > 1:
        levels.append("NUMA")
    return ",".join(levels)


def glibc_arenas(threads, limit_cpus):
    """Arenas glibc ends up with when every thread holds one at once and
    the limit is computed from limit_cpus (guest.glibc_arenas)."""
    return guest.glibc_arenas(threads, limit_cpus)


def shim_arenas(threads, online):
    """With the shim, the limit is the one the fixed glibc takes from the
    online CPUs."""
    return guest.glibc_arenas(threads, online)


def cpulist(cpus):
    """Format CPU numbers the way the kernel writes cpulists."""
    cpus = sorted(cpus)
    parts, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(parts)


ALL = cpulist(range(CPUS))
ISOLATED = cpulist(range(HOUSEKEEPING, CPUS))


def kernel_has(config_path, option):
    try:
        with open(config_path) as f:
            return any(line.strip() == option + "=y" for line in f)
    except OSError:
        return False


def boot(name, args, extra_append):
    append = "afxvm_boot=%s afxvm_threads=%d afxvm_many=%d afxvm_offline=%d %s" % (
        name, THREADS, MANY, OFFLINE_CPU, extra_append)
    return guest.boot(SUITE, MACHINE, name, args.kernel, args.initrd, append, BOOT_TIMEOUT_S,
                      args.logdir)


def parse(text):
    """The AFXVM lines as (item, {key: value}) records, the AFXVM-JSON ones
    as {item: object} (None when it does not parse) and the AFXVM-TEXT ones
    as {item: [line, ...]}."""
    records, documents, texts = [], {}, {}
    for tag, rest in guest.tagged_lines(text, ("AFXVM", "AFXVM-JSON", "AFXVM-TEXT")):
        item, _, rest = rest.partition(" ")
        if tag == "AFXVM-JSON":
            try:
                documents[item] = json.loads(rest)
            except ValueError:
                documents[item] = None
        elif tag == "AFXVM-TEXT":
            texts.setdefault(item, []).append(rest)
        elif item:
            records.append((item, guest.fields(rest)))
    return records, documents, texts


def as_text(value):
    """One spelling for values from key=value lines and from JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


class Checker:
    """The checks of one boot, kept in the suite's RESULTS."""

    def __init__(self, results, booted):
        self.boot = booted.name
        self.text = booted.console
        self.records, self.documents, self.texts = parse(booted.console)
        self.failed = 0
        self.results = results

    def find(self, item, **match):
        for it, kv in self.records:
            if it == item and all(kv.get(k) == str(v) for k, v in match.items()):
                return kv
        return None

    def expect(self, what, kv, want):
        """want: {key: expected value}; kv None means the line never came.
        Values from --json documents are compared as JSON writes them."""
        if kv is None:
            self.fail(what, "no result from the guest")
            return
        wrong = ["%s=%s (want %s)" % (k, as_text(kv.get(k, "<none>")), as_text(v))
                 for k, v in want.items() if as_text(kv.get(k, "<none>")) != as_text(v)]
        if wrong:
            self.fail(what, ", ".join(wrong))
        else:
            self.results.passed(what, " ".join("%s=%s" % (k, as_text(v)) for k, v in want.items()))

    def fail(self, what, why):
        self.failed += 1
        self.results.fail(what, why)

    def skip(self, what, why):
        self.results.skip(what, why)

    def spread(self, what, item, path, shim, glibc, threads, allowed, pinned, want_arenas,
               online=None, sees=None):
        kv = self.find(item, path=path, shim=shim, glibc=glibc)
        want = {"rc": 0, "threads": threads, "allowed": allowed,
                "cpus_used": allowed if pinned else 0, "arenas": want_arenas}
        if shim == "yes":
            want.update(online=online, arena_max=8 * online)
            if sees is not None:
                want["sees"] = sees
        self.expect(what, kv, want)

    def skipped(self, what, item):
        """The guest says why an item could not run (a program not built)."""
        kv = self.find(item)
        if kv is not None and "skipped" in kv:
            self.skip(what, "%s was not built" % kv["skipped"])
            return True
        return False

    def document(self, item):
        return self.documents.get(item)

    def finished(self):
        self.expect("%s boot: guest ran to the end" % self.boot,
                    self.find("end", boot=self.boot), {"boot": self.boot})


def check_topology(c, isolated, nohz_full):
    c.expect("%s boot: emulated topology (sysfs)" % c.boot, c.find("bed"),
             {"online": ALL, "cpus": CPUS, "packages": SOCKETS, "nodes": NODES,
              "isolated": isolated, "nohz_full": nohz_full})
    hw = c.find("hwloc")
    if hw is None:
        c.skip("%s boot: topology as hwloc sees it" % c.boot, "hwloc-calc not in the initramfs")
    else:
        c.expect("%s boot: topology as hwloc sees it" % c.boot, hw,
                 {"packages": SOCKETS, "numanodes": NODES, "pus": CPUS})


def check_probe(c, item, isolated, nohz_full, affinity):
    """Item 1 (and 4): the probe tells the glibcs apart on this host, and
    says what it saw of it.  Its thread count and pinning are its own
    choice: the expected arenas follow from what it reports using."""
    what = "item %s: arenafix probe" % ("4" if isolated else "1")
    if c.skipped(what, item):
        return
    host = {"online_cpus": CPUS, "online_list": ALL, "affinity_list": affinity,
            "isolated_list": isolated, "nohz_full_list": nohz_full}
    for glibc, verdict, status in (("system", "not affected", 0), ("affected", "affected", 3)):
        c.expect("%s, %s glibc: exit status" % (what, glibc), c.find(item, glibc=glibc),
                 {"rc": status})
        doc = c.document("%s-%s" % (item, glibc))
        if doc is None:
            c.fail("%s, %s glibc" % (what, glibc), "no --json output")
            continue
        threads, pinned_to = doc.get("threads", 0), doc.get("pinned_to_cpus", 0)
        pinned = glibc_arenas(threads, CPUS if glibc == "system" else pinned_to)
        want = dict(host, verdict=verdict, exit_status=status, arenas_pinned=pinned,
                    arenas_pinned_with_library=shim_arenas(threads, CPUS))
        c.expect("%s, %s glibc" % (what, glibc), doc, want)


def check_inspect(c, what, item, online, want_arenas, extra):
    """A live process under the affected glibc with the shim: inspect must
    see the shim's limit, the arenas, and the host's CPUs as they are."""
    if c.skipped(what, item):
        return
    c.expect("%s: the process inspected" % what, c.find(item, step="held"),
             {"arenas": want_arenas})
    c.expect("%s: exit status" % what, c.find(item, step="inspect"), {"rc": 0})
    doc = c.document(item)
    if doc is None:
        c.fail(what, "no --json output")
        return
    want = {"verdict": "fine", "libarenafix": True, "glibc_state": "affected",
            "online_cpus": online, "arenas_counted": want_arenas}
    want.update(extra)
    c.expect(what, doc, want)


def check_bench(c):
    """Item 3: the benchmark's functional pass.  Its timings are never
    read: under emulation they mean nothing."""
    what = "item 3: benchmark"
    if c.skipped(what, "bench"):
        return
    c.expect("%s: placement plan" % what, c.find("bench", step="placement"), {"rc": 0})
    plan = {}
    for line in c.texts.get("placement", []):
        m = re.match(r"thread (\d+): package (\d+), CPUs (\d+)$", line.strip())
        if m:
            plan[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
    per_package = {}
    for package, cpu in plan.values():
        per_package.setdefault(package, set()).add(cpu)
    cpus_of = lambda p: set(range(p * CORES_PER_SOCKET, (p + 1) * CORES_PER_SOCKET))
    placed = {"threads": len(plan), "packages": len(per_package),
              "threads_per_package": sorted({sum(1 for p, _ in plan.values() if p == q)
                                             for q in per_package}),
              "cpus_used": len(set(cpu for _, cpu in plan.values())),
              "cpus_outside_their_package": sum(1 for p, cpu in plan.values()
                                                if cpu not in cpus_of(p))}
    c.expect("%s: threads spread over both packages" % what, placed,
             {"threads": THREADS, "packages": SOCKETS,
              "threads_per_package": [THREADS // SOCKETS], "cpus_used": CPUS,
              "cpus_outside_their_package": 0})
    doc = c.document("bench")
    if doc is None:
        c.fail(what, "no --json output")
        return
    c.expect("%s: topology as hwloc sees it" % what, doc.get("host", {}),
             {"online_cpus": CPUS, "packages": SOCKETS, "numa_nodes": NODES, "pus": CPUS})
    results = {(r.get("glibc"), r.get("scenario")): r for r in doc.get("results", [])}
    for glibc, scenario, arenas in (
            ("system", "unpinned", glibc_arenas(THREADS, CPUS)),
            ("system", "pinned", glibc_arenas(THREADS, CPUS)),
            ("system", "shim-mallopt", shim_arenas(THREADS, CPUS)),
            ("affected", "unpinned", glibc_arenas(THREADS, CPUS)),
            ("affected", "pinned", glibc_arenas(THREADS, 1)),
            ("affected", "shim-mallopt", shim_arenas(THREADS, CPUS))):
        r = results.get((glibc, scenario))
        got = None if r is None else {"status": r.get("status"), "note": r.get("note"),
                                      "arenas": (r.get("median") or {}).get("arenas")}
        c.expect("%s: %s glibc, %s" % (what, glibc, scenario), got,
                 {"status": "ok", "arenas": arenas})


def check_main(c):
    check_topology(c, "", "")
    check_probe(c, "probe-main", "", "", ALL)
    # Item 2.  The system glibc has the upstream fix: the control.
    c.spread("item 2: %d threads unpinned, system glibc" % THREADS, "spread", "none", "no",
             "system", THREADS, CPUS, False, glibc_arenas(THREADS, CPUS))
    for path in ("self", "attr", "inherit"):
        c.spread("item 2 (%s): system glibc, no shim" % path, "spread", path, "no", "system",
                 THREADS, CPUS, True, glibc_arenas(THREADS, CPUS))
        # The bug: the limit is latched from the one CPU the thread sees.
        c.spread("item 2 (%s): affected glibc, no shim" % path, "spread", path, "no",
                 "affected", THREADS, CPUS, True, glibc_arenas(THREADS, 1))
        c.spread("item 2 (%s): affected glibc, shim" % path, "spread", path, "yes", "affected",
                 THREADS, CPUS, True, shim_arenas(THREADS, CPUS), online=CPUS)
    check_bench(c)
    # Item 5.
    rest = [cpu for cpu in range(CPUS) if cpu != OFFLINE_CPU]
    domains = sched_domains(range(CPUS))
    c.expect("item 5: scheduler domains before", c.find("hotplug", step="before"),
             {"domains": domains, "domains0": domains})
    c.expect("item 5: cpu%d offline" % OFFLINE_CPU, c.find("hotplug", step="offline"),
             {"rc": 0, "online": cpulist(rest)})
    # Pinned threads, so only the shim's count can give more than 9.
    c.spread("item 5: shim counts %d online CPUs" % len(rest), "hotplug-run", "self", "yes",
             "affected", MANY, len(rest), True, shim_arenas(MANY, len(rest)),
             online=len(rest), sees=len(rest))
    check_inspect(c, "item 5: arenafix inspect with cpu%d offline" % OFFLINE_CPU,
                  "inspect-offline", len(rest), shim_arenas(MANY, len(rest)),
                  {"online_list": cpulist(rest)})
    # A CPU brought online after the process started, before its threads.
    c.spread("item 5: cpu%d back before the threads: system glibc" % OFFLINE_CPU,
             "hotplug-late", "self", "no", "system", MANY, CPUS, True, glibc_arenas(MANY, CPUS))
    c.spread("item 5: cpu%d back before the threads: affected glibc, shim" % OFFLINE_CPU,
             "hotplug-late", "self", "yes", "affected", MANY, CPUS, True,
             shim_arenas(MANY, CPUS), online=CPUS)
    c.expect("item 5: cpu%d back online" % OFFLINE_CPU, c.find("hotplug", step="online"),
             {"rc": 0, "online": ALL, "node": OFFLINE_CPU // (CPUS // NODES),
              "domains": domains, "domains0": domains})
    c.spread("item 5: shim counts %d online CPUs again" % CPUS, "hotplug-back", "self", "yes",
             "affected", MANY, CPUS, True, shim_arenas(MANY, CPUS), online=CPUS, sees=CPUS)
    # Back after each process made 7 threads over the 15 CPUs it started
    # with: the fixed glibc counts 16 when it fixes its limit, and so must
    # the shim when it sets its own (the line at the first thread said 15).
    c.spread("item 5: cpu%d back after 7 threads: system glibc" % OFFLINE_CPU,
             "hotplug-mid", "self", "no", "system", MANY, len(rest), True,
             glibc_arenas(MANY, CPUS))
    c.expect("item 5: cpu%d back after 7 threads: affected glibc, shim" % OFFLINE_CPU,
             c.find("hotplug-mid", path="self", shim="yes", glibc="affected"),
             {"rc": 0, "threads": MANY, "allowed": len(rest), "cpus_used": len(rest),
              "arenas": shim_arenas(MANY, CPUS)})
    c.finished()


def check_isol(c, nohz):
    housekeeping = cpulist(range(HOUSEKEEPING))
    check_topology(c, ISOLATED, ISOLATED if nohz else "")
    # Isolated CPUs are left out of every scheduler domain.
    c.expect("item 4: init starts on the housekeeping CPUs", c.find("isol"),
             {"mask": housekeeping, "domains0": sched_domains(range(HOUSEKEEPING)),
              "domains_last": ""})
    c.spread("item 4: affected glibc, no shim: limit from %d CPUs" % HOUSEKEEPING, "isol-run",
             "none", "no", "affected", MANY, HOUSEKEEPING, False,
             glibc_arenas(MANY, HOUSEKEEPING))
    c.spread("item 4: affected glibc, shim: 8 x %d arenas" % CPUS, "isol-run", "none", "yes",
             "affected", MANY, HOUSEKEEPING, False, shim_arenas(MANY, CPUS),
             online=CPUS, sees=HOUSEKEEPING)
    check_probe(c, "probe-isol", ISOLATED, ISOLATED if nohz else "", housekeeping)
    check_inspect(c, "item 4: arenafix inspect on isolcpus", "inspect-isol", CPUS,
                  shim_arenas(MANY, CPUS), {"isolated_list": ISOLATED})
    c.finished()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--initrd", required=True)
    ap.add_argument("--logdir", required=True)
    args = ap.parse_args()

    start = time.monotonic()
    results = guest.Results(SUITE)
    kernel_note = guest.report_kernel(SUITE, args.kernel)
    nohz = kernel_has(args.config, "CONFIG_NO_HZ_FULL")
    isol_append = "isolcpus=%s" % ISOLATED + (" nohz_full=%s" % ISOLATED if nohz else "")
    main_boot = Checker(results, boot("main", args, ""))
    check_main(main_boot)
    isol_boot = Checker(results, boot("isol", args, isol_append))
    check_isol(isol_boot, nohz)

    consoles = [("console of the %s boot (failed checks below)" % c.boot, c.text)
                for c in (main_boot, isol_boot) if c.failed]
    return results.close(start, consoles, [kernel_note])


if __name__ == "__main__":
    sys.exit(main())
