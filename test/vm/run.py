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
import os
import re
import subprocess
import sys
import time

# ---- the host we ask qemu for -------------------------------------------
SOCKETS = 2
CORES_PER_SOCKET = 8
CPUS = SOCKETS * CORES_PER_SOCKET
NODES = SOCKETS            # one NUMA node per socket
MEMORY_MB = 1024
HOUSEKEEPING = 2           # isol boot: CPUs 0-1 keep the scheduler
OFFLINE_CPU = 5            # item 5 unplugs this one (cpu0 cannot go)
THREADS = 4 * CPUS         # item 2: 64 threads, spread one per CPU
MANY = 8 * CPUS + 32       # more threads than any arena limit here

BOOT_TIMEOUT_S = 300       # TCG on a busy 2-CPU host: generous

ARENA_TEST = 8             # glibc's M_ARENA_TEST default on 64-bit


def glibc_arenas(threads, limit_cpus):
    """Arenas glibc ends up with when every thread holds one at once and
    the limit is computed from limit_cpus (8 per CPU): the first eight
    are created before any limit is computed, so never fewer than 9."""
    return min(threads + 1, max(ARENA_TEST + 1, 8 * limit_cpus))


def shim_arenas(threads, online):
    """With the shim, the limit is set up front from the online CPUs."""
    return min(threads + 1, 8 * online)


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


def qemu_command(kernel, initrd, append):
    cmd = ["qemu-system-x86_64", "-accel", "tcg,thread=multi", "-m", str(MEMORY_MB),
           "-smp", "%d,sockets=%d,cores=%d,threads=1" % (CPUS, SOCKETS, CORES_PER_SOCKET)]
    per_node = CPUS // NODES
    for node in range(NODES):
        cmd += ["-object", "memory-backend-ram,id=m%d,size=%dM" % (node, MEMORY_MB // NODES),
                "-numa", "node,cpus=%d-%d,nodeid=%d,memdev=m%d"
                % (node * per_node, (node + 1) * per_node - 1, node, node)]
    cmd += ["-kernel", kernel, "-initrd", initrd,
            "-append", "console=ttyS0 quiet panic=-1 " + append,
            "-nographic", "-no-reboot"]
    return cmd


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1bc|\r")


def boot(name, args, extra_append):
    append = "afxvm_boot=%s afxvm_threads=%d afxvm_many=%d afxvm_offline=%d %s" % (
        name, THREADS, MANY, OFFLINE_CPU, extra_append)
    cmd = qemu_command(args.kernel, args.initrd, append.strip())
    log = os.path.join(args.logdir, "boot-%s.log" % name)
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=BOOT_TIMEOUT_S)
        raw, status = proc.stdout, "exit %d" % proc.returncode
    except subprocess.TimeoutExpired as e:
        raw, status = e.stdout or b"", "killed after %d s" % BOOT_TIMEOUT_S
    text = ANSI.sub("", raw.decode("utf-8", "replace"))
    with open(log, "w") as f:
        f.write(text)
    print("check-vm: boot %s: %s in %.0f s (console in %s)"
          % (name, status, time.monotonic() - start, log))
    return text


def parse(text):
    """Each AFXVM line as (item, {key: value})."""
    records = []
    for line in text.splitlines():
        # The firmware leaves no newline before the guest's first line.
        fields = line[line.find("AFXVM "):].split() if "AFXVM " in line else []
        if len(fields) < 2:
            continue
        kv = {}
        for field in fields[2:]:
            key, _, value = field.partition("=")
            kv[key] = value
        records.append((fields[1], kv))
    return records


class Checker:
    def __init__(self, boot_name, text):
        self.boot = boot_name
        self.text = text
        self.records = parse(text)
        self.failed = 0
        self.results = []

    def find(self, item, **match):
        for it, kv in self.records:
            if it == item and all(kv.get(k) == str(v) for k, v in match.items()):
                return kv
        return None

    def expect(self, what, kv, want):
        """want: {key: expected value}; kv None means the line never came."""
        if kv is None:
            self.fail(what, "no result from the guest")
            return
        wrong = ["%s=%s (want %s)" % (k, kv.get(k, "<none>"), v)
                 for k, v in want.items() if kv.get(k) != str(v)]
        if wrong:
            self.fail(what, ", ".join(wrong))
        else:
            self.results.append(("PASS", what, " ".join("%s=%s" % kv_ for kv_ in want.items())))

    def fail(self, what, why):
        self.failed += 1
        self.results.append(("FAIL", what, why))

    def skip(self, what, why):
        self.results.append(("SKIP", what, why))

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

    def skipped_item(self, item):
        """The guest says why an item could not run (a binary not built)."""
        kv = self.find(item)
        if kv is not None and "skipped" in kv:
            self.skip("item %s" % item, kv["skipped"].replace("-", " "))
            return True
        return False

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


def check_main(c):
    check_topology(c, "", "")
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
    # Item 5.
    rest = [cpu for cpu in range(CPUS) if cpu != OFFLINE_CPU]
    c.expect("item 5: cpu%d offline" % OFFLINE_CPU, c.find("hotplug", step="offline"),
             {"rc": 0, "online": cpulist(rest)})
    # Pinned threads, so only the shim's count can give more than 9.
    c.spread("item 5: shim counts %d online CPUs" % len(rest), "hotplug-run", "self", "yes",
             "affected", MANY, len(rest), True, shim_arenas(MANY, len(rest)),
             online=len(rest), sees=len(rest))
    c.expect("item 5: cpu%d back online" % OFFLINE_CPU, c.find("hotplug", step="online"),
             {"rc": 0, "online": ALL, "node": OFFLINE_CPU // (CPUS // NODES)})
    c.spread("item 5: shim counts %d online CPUs again" % CPUS, "hotplug-back", "self", "yes",
             "affected", MANY, CPUS, True, shim_arenas(MANY, CPUS), online=CPUS, sees=CPUS)
    c.finished()


def check_isol(c, nohz):
    housekeeping = cpulist(range(HOUSEKEEPING))
    check_topology(c, ISOLATED, ISOLATED if nohz else "")
    c.expect("item 4: init starts on the housekeeping CPUs", c.find("isol"),
             {"mask": housekeeping})
    c.spread("item 4: affected glibc, no shim: limit from %d CPUs" % HOUSEKEEPING, "isol-run",
             "none", "no", "affected", MANY, HOUSEKEEPING, False,
             glibc_arenas(MANY, HOUSEKEEPING))
    c.spread("item 4: affected glibc, shim: 8 x %d arenas" % CPUS, "isol-run", "none", "yes",
             "affected", MANY, HOUSEKEEPING, False, shim_arenas(MANY, CPUS),
             online=CPUS, sees=HOUSEKEEPING)
    c.finished()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--initrd", required=True)
    ap.add_argument("--logdir", required=True)
    args = ap.parse_args()

    start = time.monotonic()
    nohz = kernel_has(args.config, "CONFIG_NO_HZ_FULL")
    isol_append = "isolcpus=%s" % ISOLATED + (" nohz_full=%s" % ISOLATED if nohz else "")
    checkers = []
    main_boot = Checker("main", boot("main", args, ""))
    check_main(main_boot)
    checkers.append(main_boot)
    isol_boot = Checker("isol", boot("isol", args, isol_append))
    check_isol(isol_boot, nohz)
    checkers.append(isol_boot)

    failed = sum(c.failed for c in checkers)
    for c in checkers:
        if c.failed:
            print("\n---- console of the %s boot (failed checks below) ----" % c.boot)
            print(c.text.strip())
    print()
    for c in checkers:
        for verdict, what, detail in c.results:
            print("%-4s  %s: %s" % (verdict, what, detail))
    counts = {v: sum(1 for c in checkers for r in c.results if r[0] == v)
              for v in ("PASS", "FAIL", "SKIP")}
    print("\ncheck-vm: %(PASS)d passed, %(FAIL)d failed, %(SKIP)d skipped" % counts
          + " in %.0f s" % (time.monotonic() - start))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
