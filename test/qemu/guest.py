"""The qemu driver of the emulated hosts: `make check-vm` (test/vm/run.py)
and `make check-host` (test/host/run.py).

A suite's run.py says which machine it wants, what it appends to the
kernel's command line and how to judge what its guest printed.  This
module does the rest, the same way for both:

- the qemu command: TCG, the sockets and cores asked for with one NUMA
  node per socket, the kernel and the initramfs (and a disk), the console
  on the first serial port and any further ports in files;
- the kernel arguments every guest gets (KERNEL_ARGS, with the reasons);
- one boot, killed after a timeout, its console kept in LOGDIR;
- the guest's tagged lines ("TAG word key=value ...");
- the guest kernel's package, against the version pinned in
  test/qemu/kernel-version;
- the PASS/FAIL/SKIP list and the closing "SUITE: N passed, N failed,
  N skipped in S s" line.

Imported by path: each run.py puts this folder on sys.path.
"""

import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL_PIN = os.path.join(HERE, "kernel-version")

# TCG with all vCPUs on one host thread, taking turns.  With one host
# thread per vCPU (thread=multi), 16 vCPUs on a 2-CPU build host are 16
# threads the host schedules blindly: a vCPU that waits for another (an
# IPI, a lock) spins through the host time the other one needs.  The main
# check-vm boot took 50 to 76 s that way and once stalled a vCPU for
# 261 s; it takes 14 to 18 s on one thread.  See test/vm/README.md
# ("Boot").
ACCEL = "tcg,thread=single"

# The kernel arguments every guest gets, before the suite's own.
KERNEL_ARGS = [
    # The console is the first serial port; its file is the boot's log.
    "console=ttyS0",
    "quiet",
    # A panic powers the guest off at once (qemu runs with -no-reboot):
    # the suite fails then and there instead of waiting for its timeout.
    "panic=-1",
    # No self-tests of the kernel's crypto algorithms.  At boot PID 1
    # waits for each built-in algorithm's test, one at a time, before it
    # runs /init; one test thread that lost its vCPU to the others once
    # held a boot there until it was killed at 300 s ("soft lockup -
    # CPU#4 stuck for 261s! [cryptomgr_test]").  The tests check the
    # kernel's crypto code, which no suite uses or measures.
    "cryptomgr.notests",
]


def glibc_arenas(threads, cpus):
    """Arenas glibc ends with when `threads` threads besides main each hold
    one at once and its limit comes from `cpus` CPUs: the fixed glibc's
    count with the online CPUs, the affected glibc's with the deciding
    thread's.  The rule is common/arenarule.h's, asked of the build's
    test/progs/fixedarenas (AFX_FIXEDARENAS), so that C and these drivers
    cannot disagree."""
    program = os.environ.get("AFX_FIXEDARENAS", "")
    if not program:
        sys.exit("guest: AFX_FIXEDARENAS names no program (make check-vm and check-host set it)")
    return int(subprocess.check_output([program, str(threads), str(cpus)], text=True))


class Machine:
    """The emulated machine: SOCKETS packages of CORES cores (one thread
    each), one NUMA node per package holding an equal share of MEMORY_MB.
    CPU is qemu's CPU model (None: qemu's default)."""

    def __init__(self, sockets, cores, memory_mb, cpu=None):
        self.sockets = sockets
        self.cores = cores
        self.cpus = sockets * cores
        self.nodes = sockets
        self.memory_mb = memory_mb
        self.cpu = cpu

    def node_cpus(self, node):
        return range(node * self.cores, (node + 1) * self.cores)

    def qemu_args(self):
        args = ["-accel", ACCEL]
        if self.cpu:
            args += ["-cpu", self.cpu]
        args += ["-m", str(self.memory_mb),
                 "-smp", "%d,sockets=%d,cores=%d,threads=1" % (self.cpus, self.sockets, self.cores)]
        for node in range(self.nodes):
            cpus = self.node_cpus(node)
            args += ["-object", "memory-backend-ram,id=m%d,size=%dM"
                     % (node, self.memory_mb // self.nodes),
                     "-numa", "node,cpus=%d-%d,nodeid=%d,memdev=m%d"
                     % (cpus[0], cpus[-1], node, node)]
        return args


def qemu_command(machine, kernel, initrd, append, console, disk=None, ports=()):
    """The whole qemu command line.  CONSOLE and each of PORTS are files:
    the first serial port and the following ones."""
    cmd = ["qemu-system-x86_64"] + machine.qemu_args()
    cmd += ["-kernel", kernel, "-initrd", initrd,
            "-append", " ".join(KERNEL_ARGS + append.split())]
    if disk:
        cmd += ["-drive", "file=%s,format=raw,if=virtio" % disk]
    cmd += ["-nographic", "-no-reboot", "-net", "none", "-monitor", "none",
            "-serial", "file:%s" % console]
    for port in ports:
        cmd += ["-serial", "file:%s" % port]
    return cmd


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1bc|\r")


class Boot:
    """One boot: the console's text (escape sequences removed), the text
    of each further serial port by name, whether qemu exited on its own
    (finished) and how (status), and how long it took."""

    def __init__(self, name, console, ports, finished, status, seconds, log):
        self.name = name
        self.console = console
        self.ports = ports
        self.finished = finished
        self.status = status
        self.seconds = seconds
        self.log = log


def boot(suite, machine, name, kernel, initrd, append, timeout_s, logdir,
         disk=None, ports=()):
    """Boot the guest once.  Its console is kept in LOGDIR/boot-NAME.log,
    each further serial port P in LOGDIR/P-NAME.txt; a guest still running
    after TIMEOUT_S seconds is killed.  Prints one line saying how it
    ended."""
    log = os.path.join(logdir, "boot-%s.log" % name)
    files = [(port, os.path.join(logdir, "%s-%s.txt" % (port, name))) for port in ports]
    for path in [log] + [f for _, f in files]:
        if os.path.exists(path):
            os.unlink(path)
    cmd = qemu_command(machine, kernel, initrd, append, log, disk, [f for _, f in files])
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout_s)
        finished, status, own = True, "exit %d" % proc.returncode, proc.stdout
    except subprocess.TimeoutExpired as e:
        finished, status, own = False, "killed after %d s" % timeout_s, e.stdout
    except OSError as e:
        sys.exit("%s: cannot run %s: %s (test/vm/prepare.sh installs qemu-system-x86)"
                 % (suite, cmd[0], e))
    seconds = time.monotonic() - start
    console = ANSI.sub("", read(log))
    # What qemu itself said (a kernel it could not load, say) goes with
    # the console, where a failure shows it.
    own = (own or b"").decode("utf-8", "replace").strip()
    if own:
        console += "\n---- qemu ----\n%s\n" % own
    with open(log, "w") as f:
        f.write(console)
    texts = {port: read(path) for port, path in files}
    print("%s: boot %s: %s in %.0f s (console in %s)" % (suite, name, status, seconds, log),
          flush=True)
    return Boot(name, console, texts, finished, status, seconds, log)


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def tagged_lines(text, tags):
    """(tag, rest) for each line that carries one of TAGS followed by a
    blank.  The tag need not start the line: the firmware leaves no
    newline before the guest's first line."""
    alternatives = sorted((re.escape(t) for t in tags), key=len, reverse=True)
    pattern = re.compile("(%s) " % "|".join(alternatives))
    for line in text.splitlines():
        m = pattern.search(line)
        if m:
            yield m.group(1), line[m.end():]


def fields(words):
    """The key=value words of WORDS (a string) as a dict; other words
    are not facts and are left out."""
    kv = {}
    for word in words.split():
        if "=" in word:
            key, _, value = word.partition("=")
            kv[key] = value
    return kv


# ---- the guest kernel's package ---------------------------------------

def pinned_kernel():
    """"PACKAGE VERSION" as test/qemu/kernel-version pins it."""
    for line in read(KERNEL_PIN).splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return " ".join(line.split())
    return None


def report_kernel(suite, kernel):
    """Print which kernel the guests boot, from the kernel-version file
    test/vm/prepare.sh writes beside KERNEL, and whether it is the pinned
    one.  Returns the line to repeat at the end when it is not, else
    None."""
    got = " ".join(read(os.path.join(os.path.dirname(kernel), "kernel-version")).split())
    pin = pinned_kernel()
    if got == pin:
        print("%s: guest kernel: %s (pinned in test/qemu/kernel-version)" % (suite, got))
        return None
    if got.startswith("linux-image-"):
        how = "the registry no longer has the pinned %s" % pin
    elif got:
        how = "ARENAFIX_VM_KERNEL; the pinned one is %s" % pin
    else:
        got, how = kernel, "no kernel-version beside it; the pinned one is %s" % pin
    line = "%s: guest kernel: %s, NOT the pinned one (%s)" % (suite, got, how)
    print(line)
    return line


# ---- results ---------------------------------------------------------

class Results:
    """The PASS/FAIL/SKIP list of a suite, printed at the end with its
    closing line."""

    def __init__(self, suite):
        self.suite = suite
        self.rows = []

    def passed(self, what, detail=""):
        self.rows.append(("PASS", what, detail))

    def fail(self, what, detail):
        self.rows.append(("FAIL", what, detail))

    def skip(self, what, why):
        self.rows.append(("SKIP", what, why))

    def check(self, what, ok, detail=""):
        (self.passed if ok else self.fail)(what, detail)
        return ok

    def count(self, verdict):
        return sum(1 for row in self.rows if row[0] == verdict)

    def close(self, started, consoles=(), notes=()):
        """Print CONSOLES ((title, text) pairs: the boots that failed),
        the list, NOTES and the closing line; returns the exit status."""
        for title, text in consoles:
            print("\n---- %s ----" % title)
            print(text.strip())
        print()
        for verdict, what, detail in self.rows:
            print("%s  %s%s" % (verdict, what, ": " + detail if detail else ""))
        print()
        for note in notes:
            if note:
                print(note)
        print("%s: %d passed, %d failed, %d skipped in %.0f s"
              % (self.suite, self.count("PASS"), self.count("FAIL"), self.count("SKIP"),
                 time.monotonic() - started))
        return 1 if self.count("FAIL") else 0
