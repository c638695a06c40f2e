#!/usr/bin/env python3
"""make check-fleet: the Ansible role (ansible/) rolled out to five hosts
that run systemd as PID 1 and sshd, and rolled back: three Debian 12
hosts, one that Ansible and the role see as RHEL 9 (the RPMs installed
with rpm), one of a family the role does not know.

Each host is a systemd-nspawn container booted (-b) from the root file
system check-host's mkrootfs.sh makes (with this suite's package list),
one overlay per host, and reached by Debian's ansible-core over SSH on
127.0.0.1:PORT of a network namespace the suite makes for itself:

  afx-hit    affected glibc (dpkg-divert), afx-pinned.service: hit
  afx-calm   affected glibc, afx-spread.service: unpinned threads, fine
  afx-fixed  the system's fixed glibc, afx-pinned.service: fine
  afx-el     RHEL 9 as far as Ansible can tell (mkhost.sh FLEET_OS=el),
             affected glibc, afx-pinned.service: hit
  afx-odd    a family the role does not know, first in the inventory:
             it fails alone, and the rollout goes on
  afx-pods   the system's fixed glibc, rootful podman (runc) in it, and
             afx-pod.service: a container of an image with the affected
             glibc, under its unit as a quadlet runs one: hit

The package folder holds two releases of each package, of both kinds
(releases.sh): every host must get the newer, and keep it.

The services are pinnedd (test/host/progs), which counts its own arenas
with malloc_info and writes the count to its ready file: that count, not
arenafix's word, says whether a service is hit.  See test/fleet/README.md.
"""

import argparse
import base64
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "test", "qemu"))
import guest  # noqa: E402  (the Results list and its closing line)

SUITE = "check-fleet"
NETNS = "afx-fleet-%d" % os.getpid()
BOOT_TIMEOUT_S = 180
DROPIN = "/etc/systemd/system/%s.d/arenafix.conf"
STUBBORN = "afx-stubborn.service"
# On the hit host, besides its hit service: one at risk (pinned threads,
# not yet hit), written and started before the rollout.
ATRISK = "afx-atrisk.service"
ATRISK_READY = "/run/afx-atrisk.ready"
ATRISK_THREADS = 4
TIMER = "arenafix-textfile.timer"
# On the container host: podman's container of afx-pod.service, and
# where the packages put the OCI hook's configuration and the metrics
# service writes.
POD = "afx-pod"
HOOK_JSON = "/usr/share/containers/oci/hooks.d/arenafix.json"
# The log the package's hooks.d entry names, and the one option inspect
# gives a podman container where that entry is installed.
HOOK_LOG = "/var/log/arenafix-oci-hook.log"
HOOK_FIX = "--annotation io.arenafix.enable=true"
PROM = "/var/lib/prometheus/node-exporter/arenafix.prom"


class Host:
    def __init__(self, name, port, affected, unit, ready, threads, os="debian", pods=False):
        self.name = name
        self.pods = pods          # a container host (mkhost.sh FLEET_POD_GLIBC)
        self.os = os              # mkhost.sh's FLEET_OS
        self.port = port
        self.affected = affected
        self.unit = unit          # its workload service
        self.ready = ready        # the service's ready file (pinnedd)
        self.threads = threads    # the service's threads besides main
        self.proc = None          # systemd-nspawn
        self.dir = None
        self.boot_s = None
        self.cgroups = []         # its own cgroup directories (v2; v1 name=systemd)

    @property
    def root(self):
        return os.path.join(self.dir, "root")


HOSTS = [
    Host("afx-odd", 2205, False, None, None, 0, os="other"),
    Host("afx-hit", 2201, True, "afx-pinned.service", "/run/afx-pinned.ready", 32),
    Host("afx-calm", 2202, True, "afx-spread.service", "/run/afx-spread.ready", 4),
    Host("afx-fixed", 2203, False, "afx-pinned.service", "/run/afx-pinned.ready", 32),
    Host("afx-el", 2204, True, "afx-pinned.service", "/run/afx-pinned.ready", 32, os="el"),
    Host("afx-pods", 2206, False, "afx-pod.service", "/run/afx-pod/ready", 32, pods=True),
]
ODD, HIT, CALM, FIXED, EL, PODS = HOSTS
# The hosts with a workload, judged by its own count.
WORKED = [h for h in HOSTS if h.unit]
RPM_LIB = "/usr/lib64/arenafix/libarenafix.so"
# node_exporter's textfile directory by family (the role's vars/main.yml).
DEB_TEXTFILE = "/var/lib/prometheus/node-exporter"
EL_TEXTFILE = "/var/lib/node_exporter/textfile_collector"
CACHE = "/var/cache/arenafix-rollout"


def run(cmd, check=True, **kw):
    return subprocess.run(cmd, check=check, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)


def in_netns(cmd):
    return ["ip", "netns", "exec", NETNS] + cmd


class Fleet:
    def __init__(self, args):
        self.a = args
        self.out = os.path.abspath(args.outdir)
        self.key = os.path.join(self.out, "ssh", "id_ed25519")
        self.inventory = os.path.join(self.out, "inventory.ini")
        self.reports = os.path.join(self.out, "report")
        self.ansible = os.path.abspath(args.ansible)
        self.env = dict(os.environ)

    # ---- the hosts ----------------------------------------------------

    def base(self):
        """The root file system, unpacked once per rootfs.tar."""
        base = os.path.join(self.out, "base")
        key = open(self.a.rootfs_key).read()
        stamp = os.path.join(self.out, "base.key")
        if os.path.isdir(base) and os.path.exists(stamp) and open(stamp).read() == key:
            return base
        shutil.rmtree(base, ignore_errors=True)
        os.makedirs(base)
        run(["tar", "-C", base, "--numeric-owner", "-xf", self.a.rootfs])
        with open(stamp, "w") as f:
            f.write(key)
        return base

    def setup(self):
        os.makedirs(os.path.join(self.out, "ssh"), exist_ok=True)
        if not os.path.exists(self.key):
            run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "check-fleet", "-f", self.key])
        base = self.base()
        run(["ip", "netns", "add", NETNS])
        run(["ip", "-n", NETNS, "link", "set", "lo", "up"])
        for h in HOSTS:
            h.dir = os.path.join(self.out, "hosts", h.name)
            self.unmount(h)
            shutil.rmtree(h.dir, ignore_errors=True)
            for sub in ("upper", "work", "root"):
                os.makedirs(os.path.join(h.dir, sub))
            run(["mount", "-t", "overlay", "overlay", "-o",
                 "lowerdir=%s,upperdir=%s/upper,workdir=%s/work" % (base, h.dir, h.dir), h.root])
            units = ([] if h.unit is None else
                     [os.path.join(TOP, "test", "host", "guest", "afx-pinned.service")
                      if h.unit == "afx-pinned.service" else os.path.join(HERE, h.unit)])
            if h.name == "afx-hit":
                units.append(os.path.join(HERE, STUBBORN))
            if h.pods:
                units.append(os.path.join(HERE, "afx-pod-image.service"))
            r = run(["sh", os.path.join(HERE, "mkhost.sh"), h.root, h.name, str(h.port),
                     self.a.affected if h.affected else "fixed", self.key + ".pub", self.a.progs] + units,
                    check=False, env=dict(os.environ, FLEET_OS=h.os, FLEET_POD_GLIBC=self.a.affected if h.pods else ""))
            if r.returncode != 0:
                raise RuntimeError("%s: mkhost.sh failed:\n%s" % (h.name, r.stdout))
        with open(self.inventory, "w") as f:
            f.write("[fleet]\n")
            for h in HOSTS:
                f.write("%s ansible_host=127.0.0.1 ansible_port=%d\n" % (h.name, h.port))
            f.write("\n[fleet:vars]\nansible_user=root\nansible_ssh_private_key_file=%s\n"
                    "ansible_python_interpreter=/usr/bin/python3\n" % self.key)

    def boot(self):
        t0 = time.monotonic()
        for h in HOSTS:
            console = open(os.path.join(self.out, "console-%s.log" % h.name), "w")
            extra, env = [], None
            # Each host's nspawn in cgroups of its own: it makes its
            # container's "payload" below its own cgroup (and, on a hybrid
            # hierarchy, the same path in name=systemd), and nspawns that
            # shared one (this process's) made and removed the one
            # "/payload" at once ("Failed to attach ... to compat systemd
            # cgroup //payload": afx-el and afx-odd ended at boot).
            cgroups = self.own_cgroups(h)
            if h.pods:
                # What podman and runc need inside (test/fleet/README.md):
                # the cgroup v2 tree (a hybrid one's v1 controllers are
                # read-only in the container), a cgroup of its own there,
                # every capability, bpf() for runc's device filter, and its
                # storage on a tmpfs (no overlay on the host's overlay).
                extra = ["--capability=all", "--system-call-filter=bpf", "--tmpfs=/var/lib/containers:mode=0755"]
                env = dict(os.environ, SYSTEMD_NSPAWN_UNIFIED_HIERARCHY="1")
            h.proc = subprocess.Popen(
                ["systemd-nspawn", "--quiet", "-D", h.root, "-M", h.name, "-b", "--register=no", "--keep-unit",
                 "--console=read-only", "--network-namespace-path=/run/netns/" + NETNS,
                 "--resolv-conf=off", "--timezone=off", "--link-journal=no"] + extra,
                stdin=subprocess.DEVNULL, stdout=console, stderr=subprocess.STDOUT, start_new_session=True, env=env,
                preexec_fn=lambda c=cgroups: [join_cgroup(d) for d in c])
        waiting = list(HOSTS)
        while waiting and time.monotonic() - t0 < BOOT_TIMEOUT_S:
            for h in list(waiting):
                if h.proc.poll() is not None:
                    raise RuntimeError("%s: systemd-nspawn ended (status %d); see %s" %
                                       (h.name, h.proc.returncode, os.path.join(self.out, "console-%s.log" % h.name)))
                # Up: the boot finished (running, or degraded: a unit of
                # the base system failed, listed in the notes), multi-user
                # reached, the workload ready.
                r = self.ssh(h, "systemctl is-system-running --wait >/dev/null; "
                                "systemctl is-active --quiet multi-user.target && cat %s" % (h.ready or "/dev/null"),
                             check=False, timeout=60)
                if r.returncode == 0:
                    h.boot_s = time.monotonic() - t0
                    waiting.remove(h)
            time.sleep(1)
        if waiting:
            why = [self.ssh(h, "journalctl -b -q -o cat -n 20 -u %s" % h.unit, check=False, timeout=30).stdout.strip()
                   for h in waiting if h.unit]
            raise RuntimeError("not up within %d s: %s\n%s" % (BOOT_TIMEOUT_S, " ".join(h.name for h in waiting),
                                                               "\n".join(why)))
        return time.monotonic() - t0

    def failed_units(self):
        out = []
        for h in HOSTS:
            r = self.ssh(h, "systemctl list-units --failed --plain --no-legend", check=False)
            for unit in [line.split()[0] for line in r.stdout.splitlines() if line.strip()]:
                why = self.ssh(h, "journalctl -b -q -o cat -n 3 -u %s | tr '\\n' ' '" % unit, check=False)
                out.append("%s: %s (%s)" % (h.name, unit, why.stdout.strip()[:300]))
        return out

    def shutdown(self):
        for h in HOSTS:
            if h.proc is not None and h.proc.poll() is None:
                h.proc.send_signal(signal.SIGTERM)     # nspawn powers the container off
        for h in HOSTS:
            if h.proc is None:
                continue
            try:
                h.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(h.proc.pid, signal.SIGKILL)
                h.proc.wait()
        for h in HOSTS:
            if h.dir:
                self.unmount(h)
            for d in h.cgroups:
                remove_cgroup(d)
        run(["ip", "netns", "delete", NETNS], check=False)

    @staticmethod
    def own_cgroups(h):
        """A cgroup directory of the host's own below this process's, in
        the cgroup v2 hierarchy and, where there is one (a hybrid
        hierarchy), in v1's name=systemd: its nspawn and its systemd then
        own a tree that no other host's shares."""
        mounts = {}
        with open("/proc/self/mounts") as f:
            for line in f:
                fields = line.split()
                if fields[2] == "cgroup2" and "v2" not in mounts:
                    mounts["v2"] = fields[1]
                elif fields[2] == "cgroup" and "name=systemd" in fields[3].split(",") and "v1" not in mounts:
                    mounts["v1"] = fields[1]
        mine = {}
        with open("/proc/self/cgroup") as f:
            for line in f:
                hid, controllers, path = line.rstrip("\n").split(":", 2)
                if hid == "0" and controllers == "":
                    mine["v2"] = path
                elif "name=systemd" in controllers.split(","):
                    mine["v1"] = path
        if h.pods and ("v2" not in mounts or "v2" not in mine):
            raise RuntimeError("%s: no cgroup v2 hierarchy here, which podman in the host needs" % h.name)
        for kind in ("v2", "v1"):
            if kind in mounts and kind in mine:
                d = os.path.join(mounts[kind], mine[kind].lstrip("/"), "%s-%s" % (NETNS, h.name))
                os.makedirs(d, exist_ok=True)
                h.cgroups.append(d)
        return h.cgroups

    @staticmethod
    def unmount(h):
        if os.path.ismount(h.root):
            run(["umount", h.root], check=False)

    # ---- talking to them ----------------------------------------------

    def ssh(self, h, command, check=True, timeout=120):
        cmd = in_netns(["ssh", "-q", "-i", self.key, "-p", str(h.port), "-o", "BatchMode=yes",
                        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                        "-o", "ConnectTimeout=5", "root@127.0.0.1", command])
        try:
            return run(cmd, check=check, timeout=timeout)
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(cmd, 124, "timed out", "")

    def facts(self, h):
        """What the suite judges a host by, read over SSH: its service's
        main PID and own count, the arenafix package's version as the
        host's own package manager has it, the drop-in, scratch
        directories left, and (RPM) whether the service maps the RPM's
        library."""
        if h.unit is None:
            r = self.ssh(h, "ls -d /tmp/*.arenafix %s /usr/bin/arenafix 2>/dev/null | wc -l" % CACHE, check=False)
            return {"raw": r.stdout, "pid": None, "left": r.stdout.strip()}
        version = ("rpm -q --quiet arenafix && rpm -q --qf '%{VERSION}-%{RELEASE}' arenafix" if h.os == "el"
                   else "dpkg-query -W -f '${Version}' arenafix 2>/dev/null")
        r = self.ssh(h, "pid=$(systemctl show -p MainPID --value %s); echo $pid; cat %s; "
                        "cat /sys/devices/system/cpu/online; %s; echo; "
                        "ls %s 2>/dev/null | wc -l; ls -d /tmp/*.arenafix 2>/dev/null | wc -l; "
                        "grep -c %s /proc/$pid/maps 2>/dev/null || :"
                     % (h.unit, h.ready, version, DROPIN % h.unit, RPM_LIB), check=False)
        lines = r.stdout.splitlines()
        f = {"raw": r.stdout}
        try:
            f["pid"] = int(lines[0])
            f["ready"] = dict(w.split("=", 1) for w in lines[1].split() if "=" in w)
            f["arenas"] = int(f["ready"]["arenas"])
            f["online"] = cpu_count(lines[2])
            f["package"] = lines[3].strip()
            f["dropin"] = lines[4].strip() != "0"
            f["scratch"] = lines[5].strip() != "0"
            f["rpm_lib"] = lines[6].strip() not in ("", "0")
        except (IndexError, KeyError, ValueError):
            f["pid"] = None
        return f

    def service(self, h, unit, ready):
        """One more service of a host: its main PID, its own arena count
        (pinnedd's ready file) and whether it has arenafix's drop-in."""
        r = self.ssh(h, "systemctl show -p MainPID --value %s; cat %s; ls %s 2>/dev/null | wc -l"
                     % (unit, ready, DROPIN % unit), check=False)
        lines = r.stdout.splitlines()
        try:
            ready = dict(w.split("=", 1) for w in lines[1].split() if "=" in w)
            return {"pid": int(lines[0]), "arenas": int(ready["arenas"]), "dropin": lines[2].strip() != "0"}
        except (IndexError, KeyError, ValueError):
            return {"pid": None, "raw": r.stdout}

    def add_service(self, h, unit_file, ready):
        """A unit written onto a running host and started."""
        with open(unit_file) as f:
            r = run(in_netns(["ssh", "-q", "-i", self.key, "-p", str(h.port), "-o", "BatchMode=yes",
                              "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                              "root@127.0.0.1", "cat >/etc/systemd/system/%s && systemctl daemon-reload && "
                              "systemctl start %s && cat %s" % (os.path.basename(unit_file),
                                                                os.path.basename(unit_file), ready)]),
                    check=False, stdin=f, timeout=120)
        if r.returncode != 0:
            raise RuntimeError("%s: could not start %s: %s" % (h.name, unit_file, r.stdout.strip()))

    def pod(self, h):
        """The container of afx-pod.service: its main process's PID as
        the host sees it, and pinnedd's own count there; podman's PID
        (the unit's main process), the unit's drop-in."""
        r = self.ssh(h, "podman inspect -f '{{.State.Pid}} {{.Id}}' %s; cat %s; systemctl show -p MainPID --value %s; "
                        "ls %s 2>/dev/null | wc -l" % (POD, h.ready, h.unit, DROPIN % h.unit), check=False)
        lines = r.stdout.splitlines()
        try:
            ready = dict(w.split("=", 1) for w in lines[1].split() if "=" in w)
            return {"pid": int(lines[0].split()[0]), "id": lines[0].split()[1], "arenas": int(ready["arenas"]),
                    "podman": int(lines[2]), "dropin": lines[3].strip() != "0"}
        except (IndexError, KeyError, ValueError):
            return {"pid": None, "raw": r.stdout}

    def timer(self, h):
        r = self.ssh(h, "systemctl is-enabled %s; systemctl is-active %s" % (TIMER, TIMER), check=False)
        return " ".join(r.stdout.split())

    def report(self, h, run):
        """The role's JSON report of host H for RUN (rollout, check, rollback), or None."""
        try:
            with open(os.path.join(self.reports, "%s.%s.json" % (h.name, run))) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def inspect(self, h, pid):
        r = self.ssh(h, "arenafix inspect --json %d" % pid, check=False)
        try:
            return json.loads(r.stdout)
        except ValueError:
            return {"verdict": "(no JSON: %s)" % r.stdout.strip()[:200]}

    def playbook(self, step, playbook, *extra, inventory=None, group_vars_all=None):
        """One ansible-playbook run.  INVENTORY: more inventory, as INI
        text, given as a second -i; GROUP_VARS_ALL: YAML for
        group_vars/all.yml beside the inventory, for this run only."""
        env = dict(self.env)
        env.update({
            "ANSIBLE_HOME": os.path.join(self.out, "ansible-home"),
            "ANSIBLE_LOCAL_TEMP": os.path.join(self.out, "ansible-home", "tmp"),
            "ANSIBLE_HOST_KEY_CHECKING": "False",
            "ANSIBLE_SSH_ARGS": "-o ControlMaster=auto -o ControlPersist=30s -o UserKnownHostsFile=/dev/null",
            "ANSIBLE_SSH_CONTROL_PATH_DIR": os.path.join(self.out, "ansible-home", "cp"),
            "ANSIBLE_PIPELINING": "True",
            "ANSIBLE_NOCOLOR": "1",
            "ANSIBLE_RETRY_FILES_ENABLED": "False",
            "ANSIBLE_FORKS": "5",
        })
        more = []
        if inventory is not None:
            path = os.path.join(self.out, "inventory-%s.ini" % step)
            with open(path, "w") as f:
                f.write(inventory)
            more = ["-i", path]
        gv = os.path.join(self.out, "group_vars")
        shutil.rmtree(gv, ignore_errors=True)
        if group_vars_all is not None:
            os.makedirs(gv)
            with open(os.path.join(gv, "all.yml"), "w") as f:
                f.write(group_vars_all)
        # Each run's reports alone.
        shutil.rmtree(self.reports, ignore_errors=True)
        cmd = in_netns(["ansible-playbook", "-i", self.inventory] + more + [os.path.join(self.ansible, playbook),
                        "-e", "arenafix_deb_dir=" + os.path.abspath(self.a.debs),
                        "-e", "arenafix_report_dir=" + self.reports] + list(extra))
        t0 = time.monotonic()
        try:
            r = run(cmd, check=False, env=env)
        finally:
            shutil.rmtree(gv, ignore_errors=True)
        seconds = time.monotonic() - t0
        log = os.path.join(self.out, "ansible-%s.log" % step)
        with open(log, "w") as f:
            f.write(r.stdout)
        return Play(step, r.returncode, r.stdout, seconds, log)


class Play:
    RECAP = re.compile(r"^(\S+)\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)\s+"
                       r"skipped=(\d+)\s+rescued=(\d+)\s+ignored=(\d+)", re.M)

    def __init__(self, step, rc, text, seconds, log):
        self.step, self.rc, self.text, self.seconds, self.log = step, rc, text, seconds, log
        self.recap = {}
        for m in self.RECAP.finditer(text):
            self.recap[m.group(1)] = {"ok": int(m.group(2)), "changed": int(m.group(3)),
                                      "unreachable": int(m.group(4)), "failed": int(m.group(5)),
                                      "ignored": int(m.group(8))}

    def batches(self, name):
        """How many batches the play NAME ran in (a PLAY line per batch)."""
        return self.text.count("PLAY [%s]" % name)

    def hosts_in(self, name):
        """The hosts the play NAME ran a task on (its task lines)."""
        seen, inside = set(), False
        for line in self.text.splitlines():
            if line.startswith(("PLAY [", "PLAY RECAP")):
                inside = line.startswith("PLAY [%s]" % name)
                continue
            m = re.match(r"^\w+: \[([^\]\s]+)", line)
            if inside and m:
                seen.add(m.group(1))
        return sorted(seen)

    def changed(self, h):
        return self.recap.get(h.name, {}).get("changed")

    def clean(self, h):
        """Reached, nothing failed."""
        c = self.recap.get(h.name)
        return c is not None and c["unreachable"] == 0 and c["failed"] == 0

    def recap_lines(self):
        return [line for line in self.text.splitlines() if self.RECAP.match(line)]

    def reports(self):
        """The role's report of each host (the output of the task that
        shows it, the rollout's or the rollback's)."""
        out, keep = [], False
        for line in self.text.splitlines():
            if line.startswith(("TASK [", "PLAY [", "PLAY RECAP")):
                keep = line.startswith("TASK [") and ("Report | what was found and done" in line
                                                      or "Rollback | report]" in line)
                continue
            if keep and line.strip():
                out.append(line)
        return out


def join_cgroup(path):
    with open(os.path.join(path, "cgroup.procs"), "w") as f:
        f.write("0")


def remove_cgroup(path):
    """The host's cgroup, emptied by its systemd's poweroff: the
    directories its systemd left, deepest first.  What is still in it is
    killed first: a container whose nspawn was killed (a host that did
    not power off, beside one that ended at boot) runs on without it."""
    kill = os.path.join(path, "cgroup.kill")
    if os.path.exists(kill):
        try:
            with open(kill, "w") as f:
                f.write("1")
        except OSError:
            pass
    else:
        # v1 has no cgroup.kill: each process of the tree, by its PID.
        for top, _, files in os.walk(path):
            try:
                with open(os.path.join(top, "cgroup.procs")) as f:
                    pids = f.read().split()
            except OSError:
                pids = []
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (OSError, ValueError):
                    pass
    # The killed take a moment to leave (a generous 30 s at most).
    for _ in range(300):
        for top, dirs, _ in os.walk(path, topdown=False):
            for d in dirs:
                try:
                    os.rmdir(os.path.join(top, d))
                except OSError:
                    pass
        try:
            os.rmdir(path)
        except OSError:
            pass
        if not os.path.exists(path):
            return
        time.sleep(0.1)


def cpu_count(cpulist):
    n = 0
    for part in cpulist.strip().split(","):
        lo, _, hi = part.partition("-")
        n += int(hi or lo) - int(lo) + 1
    return n


def fixed_arenas(threads, online):
    """A fixed glibc's (and arenafix's) arenas: one per thread and main's,
    up to 8 per online CPU (64-bit)."""
    return min(threads + 1, 8 * online)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rootfs", required=True)
    p.add_argument("--rootfs-key", required=True)
    p.add_argument("--affected", required=True, help="the folder of the affected libc.so.6")
    p.add_argument("--progs", required=True, help="a folder holding pinnedd")
    p.add_argument("--debs", required=True, help="the package folder (releases.sh): two releases, .deb and .rpm")
    p.add_argument("--version", required=True, help="the project's version (releases.sh names the newer releases)")
    p.add_argument("--outdir", required=True)
    p.add_argument("--ansible", default=os.path.join(TOP, "ansible"),
                   help="the playbooks and role to run (default: this tree's ansible/)")
    args = p.parse_args()
    started = time.monotonic()
    r = guest.Results(SUITE)
    notes = []
    fleet = Fleet(args)
    try:
        check(fleet, r, notes)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        detail = e.stdout if isinstance(e, subprocess.CalledProcessError) else str(e)
        r.fail("the fleet", "%s" % (detail or e).strip()[-2000:])
    finally:
        fleet.shutdown()
    return r.close(started, notes=notes)


def check(fleet, r, notes):
    t0 = time.monotonic()
    fleet.setup()
    t1 = time.monotonic()
    boot_s = fleet.boot()
    notes.append("%s: hosts made in %.0f s, booted to sshd and multi-user in %.0f s (%s)"
                 % (SUITE, t1 - t0, boot_s, ", ".join("%s %.0f s" % (h.name, h.boot_s) for h in HOSTS)))
    failed = fleet.failed_units()
    if failed:
        notes.append("%s: units of the base system that failed at boot (not this suite's): %s"
                     % (SUITE, "; ".join(failed)))
    # The releases the package folder holds (releases.sh): the newer of each.
    newest = {"debian": fleet.a.version + "+fleet1", "el": fleet.a.version + "-1.fleet10"}
    hit, calm, fixed, el, pods = HIT, CALM, FIXED, EL, PODS
    fleet.add_service(hit, os.path.join(HERE, ATRISK), ATRISK_READY)

    before = {h.name: fleet.facts(h) for h in HOSTS}
    for h in WORKED:
        f = before[h.name]
        if f["pid"] is None:
            raise RuntimeError("%s: cannot read the facts of %s:\n%s" % (h.name, h.unit, f["raw"]))
        want = fixed_arenas(h.threads, f["online"])
        print("%s: host %s (%s) at 127.0.0.1:%d (network namespace %s): %s glibc, %s PID %d: %d arenas for %d "
              "threads (a fixed glibc: %d)" % (SUITE, h.name, h.os, h.port, NETNS, "affected" if h.affected else "fixed",
                                              h.unit, f["pid"], f["arenas"], h.threads, want))
    print("%s: host %s (%s) at 127.0.0.1:%d: no workload" % (SUITE, ODD.name, ODD.os, ODD.port))
    risk0 = fleet.service(hit, ATRISK, ATRISK_READY)
    pod0 = fleet.pod(pods)
    print("%s: host %s: podman container %s (%s), PID %s: %s arenas for %d pinned threads, its image's glibc "
          "affected" % (SUITE, pods.name, POD, pod0.get("id", "?")[:12], pod0["pid"], pod0.get("arenas"), pods.threads))
    print("%s: host %s: %s PID %s: %s arenas for %d pinned threads" % (SUITE, hit.name, ATRISK, risk0["pid"],
                                                                    risk0.get("arenas"), ATRISK_THREADS))
    sys.stdout.flush()
    online = before[hit.name]["online"]
    for h in (hit, el):
        r.check("before: %s on %s is hit (pinnedd's own count)" % (h.unit, h.name),
                before[h.name]["arenas"] < fixed_arenas(h.threads, online),
                "%d arenas, a fixed glibc makes %d" % (before[h.name]["arenas"], fixed_arenas(h.threads, online)))
    for h in (calm, fixed):
        r.check("before: %s on %s is not hit" % (h.unit, h.name),
                before[h.name]["arenas"] == fixed_arenas(h.threads, online),
                "%d arenas" % before[h.name]["arenas"])
    r.check("before: %s on %s is not hit yet (its threads pinned, its count a fixed glibc's)" % (ATRISK, hit.name),
            risk0.get("arenas") == fixed_arenas(ATRISK_THREADS, online), "%s" % risk0)
    r.check("before: the container of %s on %s (its own glibc fixed) is hit (pinnedd's own count)"
            % (pods.unit, pods.name),
            pod0["pid"] is not None and pod0["arenas"] < fixed_arenas(pods.threads, online), "%s" % pod0)

    lint(r, fleet.out, fleet.ansible)

    # --check first: says what would change, changes nothing.
    play = fleet.playbook("check-before", "site.yml", "--check")
    notes.append("%s: --check before the rollout: %.0f s" % (SUITE, play.seconds))
    r.check("--check: ends with success on every host", play.rc == 0 and all(play.clean(h) for h in HOSTS),
            "status %d, recap: %s; see %s" % (play.rc, play.recap, play.log))
    r.check("--check: reports changes on the hit hosts, none on the fixed one",
            (play.changed(hit) or 0) > 0 and (play.changed(el) or 0) > 0 and play.changed(fixed) == 0,
            "changed: %s" % {h.name: play.changed(h) for h in HOSTS})
    for h in (hit, el):
        r.check("--check: says it would enable %s on %s" % (h.unit, h.name),
                re.search(r"changed: \[%s\] => \(item=%s\)" % (h.name, re.escape(h.unit)), play.text) is not None,
                "see %s" % play.log)
    r.check("--check: would not enable %s (at risk: only what is hit, by default)" % ATRISK,
            "(item=%s)" % ATRISK not in play.text, "see %s" % play.log)
    reps = {h.name: fleet.report(h, "check") for h in HOSTS}
    r.check("--check: the JSON reports on the controller are the check's (HOST.check.json): %s and %s would "
            "enable %s" % (hit.name, el.name, hit.unit),
            all(reps[h.name] is not None and reps[h.name].get("run") == "check" for h in HOSTS)
            and all(hit.unit in (reps[h.name] or {}).get("enabled", []) for h in (hit, el)),
            "%s" % {k: v and {f: v.get(f) for f in ("run", "enabled")} for k, v in reps.items()})
    same_as(fleet, r, "--check", before, HOSTS)

    # The rollout, in one batch: arenafix_serial from the inventory's
    # [all:vars].
    play = fleet.playbook("first", "site.yml", inventory="[all:vars]\narenafix_serial=%d\n" % len(HOSTS))
    notes.append("%s: first rollout: %.0f s" % (SUITE, play.seconds))
    print("\n%s: the role's report of each host, first run:" % SUITE)
    print("\n".join(play.reports()))
    print("\n".join(play.recap_lines()))
    r.check("rollout: ends with success on every host", play.rc == 0 and all(play.clean(h) for h in HOSTS),
            "status %d, recap: %s; see %s" % (play.rc, play.recap, play.log))
    r.check("rollout: arenafix_serial=%d in the inventory's [all:vars]: the %d hosts in one batch"
            % (len(HOSTS), len(HOSTS)),
            play.batches("Roll out arenafix") == 1, "%d batches" % play.batches("Roll out arenafix"))
    after = {h.name: fleet.facts(h) for h in HOSTS}
    odd_failure(r, "rollout", play, after[ODD.name], fleet.report(ODD, "rollout"))
    for h in (hit, el):
        a = after[h.name]
        r.check("rollout: %s on %s was restarted" % (h.unit, h.name),
                a["pid"] is not None and a["pid"] != before[h.name]["pid"],
                "PID %s, before %s" % (a["pid"], before[h.name]["pid"]))
        r.check("rollout: %s on %s is fine (pinnedd's own count is the fixed glibc's)" % (h.unit, h.name),
                a.get("arenas") == fixed_arenas(h.threads, online),
                "%s arenas, want %d" % (a.get("arenas"), fixed_arenas(h.threads, online)))
        v = fleet.inspect(h, a["pid"]) if a["pid"] else {}
        r.check("rollout: arenafix inspect on %s says %s is fine with the library" % (h.name, h.unit),
                v.get("verdict") == "fine" and v.get("libarenafix") is True,
                "%s: %s" % (v.get("verdict"), v.get("reason")))
        r.check("rollout: %s has arenafix's drop-in and the package" % h.name,
                a.get("dropin") and a.get("package") != "", "drop-in %s, package %r" % (a.get("dropin"), a.get("package")))
    r.check("rollout: %s's service maps the RPM's library (%s)" % (el.name, RPM_LIB), after[el.name].get("rpm_lib"),
            "see %s" % play.log)
    risk1 = fleet.service(hit, ATRISK, ATRISK_READY)
    r.check("rollout: %s on %s (at risk, not hit) was left running as it was, no drop-in" % (ATRISK, hit.name),
            risk1["pid"] == risk0["pid"] and risk1.get("dropin") is False,
            "PID %s (before %s), drop-in %s" % (risk1["pid"], risk0["pid"], risk1.get("dropin")))
    c = after[calm.name]
    r.check("rollout: %s got the package, and %s was left running as it was" % (calm.name, calm.unit),
            c.get("package") != "" and c["pid"] == before[calm.name]["pid"] and not c.get("dropin"),
            "package %r, PID %s (before %s), drop-in %s" % (c.get("package"), c["pid"], before[calm.name]["pid"],
                                                           c.get("dropin")))
    r.check("rollout: the newer of the folder's two releases on every host it installs on (%s)"
            % ", ".join("%s %s" % (h.name, newest[h.os]) for h in (hit, calm, el)),
            all(after[h.name].get("package") == newest[h.os] for h in (hit, calm, el)),
            ", ".join("%s %r" % (h.name, after[h.name].get("package")) for h in (hit, calm, el)))
    r.check("rollout: %s (fixed glibc) was skipped: changed nothing, installed nothing" % fixed.name,
            play.changed(fixed) == 0 and same(before[fixed.name], after[fixed.name]),
            "changed %s; before %s; after %s" % (play.changed(fixed), brief(before[fixed.name]),
                                                 brief(after[fixed.name])))
    timers = {h.name: fleet.timer(h) for h in HOSTS}
    r.check("rollout: %s enabled and active where the role installed (%s, %s, %s), not on %s or %s"
            % (TIMER, hit.name, calm.name, el.name, fixed.name, ODD.name),
            timers[hit.name] == timers[calm.name] == timers[el.name] == "enabled active"
            and timers[fixed.name] != "enabled active" and timers[ODD.name] != "enabled active",
            "%s" % timers)
    pod1 = fleet.pod(pods)
    a = after[pods.name]
    hook = fleet.ssh(pods, "test -f %s" % HOOK_JSON, check=False).returncode == 0
    r.check("rollout: %s (its own glibc fixed, a container hit) got the packages (%s), the OCI hook's "
            "configuration and %s" % (pods.name, newest["debian"], TIMER),
            a.get("package") == newest["debian"] and hook and timers[pods.name] == "enabled active",
            "package %r, %s %s, timer %s; see %s" % (a.get("package"), HOOK_JSON, hook, timers[pods.name], play.log))
    r.check("rollout: %s on %s, the unit of a container, neither enabled nor restarted (podman and the container "
            "run on, no drop-in)" % (pods.unit, pods.name),
            pod1["pid"] is not None and pod1["pid"] == pod0["pid"] and pod1["podman"] == pod0["podman"]
            and not pod1["dropin"],
            "before %s; after %s" % (pod0, pod1))
    rp = fleet.report(pods, "rollout") or {}
    boxed = rp.get("containers") or [{}]
    c0 = boxed[0]
    pod_fix = c0.get("fix", "")
    r.check("rollout: %s's report names the hit container (engine, ID, name, process, verdict, unit) with the fix "
            "inspect prints for it (%s: the OCI hook's entry is installed), and enables nothing" % (pods.name, HOOK_FIX),
            len(boxed) == 1 and (c0.get("engine"), c0.get("id"), c0.get("name"), c0.get("pid"), c0.get("process"),
                                 c0.get("verdict"), c0.get("unit"))
            == ("podman", pod0.get("id"), POD, pod0["pid"], "pinnedd", "hit", pods.unit)
            # the package installed the hook's entry: its one option, alone
            and c0.get("fix") == HOOK_FIX
            and rp.get("skipped") is False and len(rp.get("installed", [])) == 2 and rp.get("enabled") == []
            and rp.get("restarted") == [] and rp.get("container_units") == [pods.unit],
            "report %s; see %s" % ({k: rp.get(k) for k in ("skipped", "installed", "containers", "container_units",
                                                            "enabled", "restarted")}, fleet.reports))
    prom = fleet.ssh(pods, "systemctl start arenafix-textfile.service; cat %s" % PROM, check=False)
    r.check("rollout: the metrics of %s (%s, its timer's service) say its podman container's pinnedd is hit"
            % (pods.name, PROM),
            re.search(r'^arenafix_process_verdict\{unit="\(podman container\)",container="[^"]+",comm="pinnedd",verdict="hit"\} 1$',
                      prom.stdout, re.M) is not None,
            prom.stdout.strip()[-800:])
    r.check("rollout: no scratch directory left on any host",
            not any(after[h.name].get("scratch") for h in WORKED),
            ", ".join("%s %s" % (h.name, after[h.name].get("scratch")) for h in WORKED))
    reps = {h.name: fleet.report(h, "rollout") for h in HOSTS}
    rh, rc_, rf, re_ = (reps[h.name] or {} for h in (hit, calm, fixed, el))
    r.check("rollout: a JSON report per host on the controller says what was probed, installed, scanned, "
            "restarted and verified",
            all(rep.get("probe", {}).get("verdict") == "affected" and len(rep.get("installed", [])) == 2
                and rep.get("scan", {}).get("hit") == 1 and rep.get("restarted") == [h.unit]
                and [(x.get("unit"), x.get("pid"), x.get("verdict")) for x in rep.get("verified", [])]
                == [(h.unit, after[h.name]["pid"], "fine")]
                and rep.get("metrics_timer") == "enabled and started" and rep.get("failed") is False
                for h, rep in ((hit, rh), (el, re_)))
            and [(x.get("unit"), x.get("verdict")) for x in rh.get("not_fixed", [])] == [(ATRISK, "at risk")]
            and all(f.endswith(".deb") for f in rh.get("installed", []))
            and all(f.endswith(".rpm") for f in re_.get("installed", []))
            and rc_.get("restarted") == [] and len(rc_.get("installed", [])) == 2
            and rf.get("skipped") is True and rf.get("installed") == [] and rf.get("probe", {}).get("verdict")
            == "not affected",
            "reports %s; see %s" % ({k: v and {f: v.get(f) for f in ("probe", "installed", "restarted", "verified",
                                                                         "not_fixed", "skipped", "metrics_timer")}
                                     for k, v in reps.items()}, fleet.reports))
    r.check("rollout: each report names node_exporter's textfile directory of its host's family (%s: %s)"
            % (el.name, EL_TEXTFILE),
            rh.get("metrics_dir") == DEB_TEXTFILE and rc_.get("metrics_dir") == DEB_TEXTFILE
            and re_.get("metrics_dir") == EL_TEXTFILE,
            "%s" % {k: v and v.get("metrics_dir") for k, v in reps.items()})

    # Again: nothing to do.  arenafix_serial from group_vars/all.yml
    # beside the inventory.
    play = fleet.playbook("second", "site.yml", group_vars_all="arenafix_serial: %d\n" % len(HOSTS))
    notes.append("%s: second rollout: %.0f s" % (SUITE, play.seconds))
    print("\n%s: the role's report of each host, second run:" % SUITE)
    print("\n".join(play.reports()))
    print("\n".join(play.recap_lines()))
    r.check("second rollout: changed=0 on every host, nothing failed",
            play.rc == 0 and all(play.clean(h) and play.changed(h) == 0 for h in HOSTS),
            "status %d, recap: %s; see %s" % (play.rc, play.recap, play.log))
    r.check("second rollout: arenafix_serial: %d in group_vars/all.yml: one batch" % len(HOSTS),
            play.batches("Roll out arenafix") == 1, "%d batches" % play.batches("Roll out arenafix"))
    again = {h.name: fleet.facts(h) for h in HOSTS}
    same_as(fleet, r, "second rollout", after, WORKED, again)
    odd_failure(r, "second rollout", play, again[ODD.name], fleet.report(ODD, "rollout"))

    play = fleet.playbook("check-after", "site.yml", "--check")
    notes.append("%s: --check after the rollout: %.0f s" % (SUITE, play.seconds))
    r.check("--check after the rollout: nothing would change",
            play.rc == 0 and all(play.clean(h) and play.changed(h) == 0 for h in HOSTS),
            "status %d, recap: %s; see %s" % (play.rc, play.recap, play.log))

    containers(fleet, r, pods)

    # Rollback, of the service named as the rollout takes it: a short
    # name (the string form, as -e gives it, is the stubborn run's).
    short = hit.unit[:-len(".service")]
    play = fleet.playbook("rollback", "rollback.yml", "-e", json.dumps({"arenafix_services": [short]}))
    notes.append("%s: rollback: %.0f s" % (SUITE, play.seconds))
    print("\n%s: rollback, arenafix_services: [%s]:" % (SUITE, short))
    print("\n".join(play.reports()))
    print("\n".join(play.recap_lines()))
    r.check("rollback, arenafix_services: [%s]: ends with success on every host; changes only %s and %s"
            % (short, hit.name, el.name),
            play.rc == 0 and all(play.clean(h) for h in HOSTS) and (play.changed(hit) or 0) > 0
            and (play.changed(el) or 0) > 0 and all(play.changed(h) == 0 for h in HOSTS if h not in (hit, el)),
            "status %d, recap: %s; see %s" % (play.rc, play.recap, play.log))
    back = {h.name: fleet.facts(h) for h in HOSTS}
    for h in (hit, el):
        a, b = after[h.name], back[h.name]
        r.check("rollback: %s on %s restarted without the drop-in, hit again (pinnedd's own count)"
                % (h.unit, h.name),
                b["pid"] is not None and b["pid"] != a["pid"] and not b.get("dropin")
                and b.get("arenas") == before[h.name]["arenas"],
                "PID %s (was %s), drop-in %s, %s arenas (before the rollout %d)"
                % (b["pid"], a["pid"], b.get("dropin"), b.get("arenas"), before[h.name]["arenas"]))
    b = back[hit.name]
    v = fleet.inspect(hit, b["pid"]) if b["pid"] else {}
    r.check("rollback: arenafix inspect on %s says %s is hit" % (hit.name, hit.unit),
            v.get("verdict") == "hit", "%s: %s" % (v.get("verdict"), v.get("reason")))
    reps = {h.name: fleet.report(h, "rollback") for h in (hit, el)}
    r.check("rollback: the JSON reports of %s and %s say %s was disabled and restarted" % (hit.name, el.name, hit.unit),
            all(rep is not None and rep.get("disabled") == [hit.unit] and rep.get("restarted") == [hit.unit]
                for rep in reps.values()),
            "%s" % reps)
    rep = fleet.report(ODD, "rollback") or {}
    r.check("rollback: %s (a family the role does not know) is left, and its report says why" % ODD.name,
            play.recap.get(ODD.name, {}).get("ignored") == 1
            and "installs only on the Debian and RedHat families" in rep.get("left", ""),
            "recap %s, report %s" % (play.recap.get(ODD.name), rep))
    play = fleet.playbook("rollback-again", "rollback.yml")
    r.check("rollback again: changed=0 on every host",
            play.rc == 0 and all(play.clean(h) and play.changed(h) == 0 for h in HOSTS),
            "status %d, recap: %s; see %s" % (play.rc, play.recap, play.log))

    # One phase: --tags scan probes and scans, installs and changes
    # nothing, and reports what it found.
    play = fleet.playbook("tags-scan", "site.yml", "--limit", hit.name, "--tags", "scan")
    now = fleet.facts(hit)
    rep = fleet.report(hit, "rollout") or {}
    r.check("--tags scan: %s scanned (%s found hit), nothing enabled or restarted" % (hit.name, hit.unit),
            play.rc == 0 and play.clean(hit) and play.changed(hit) == 0 and now["pid"] == b["pid"]
            and not now.get("dropin") and rep.get("tags") == ["scan"]
            and [(x.get("unit"), x.get("verdict")) for x in rep.get("found", [])] == [(hit.unit, "hit")]
            and rep.get("enabled") == [] and rep.get("restarted") == [],
            "status %d, recap %s, PID %s (was %s), drop-in %s, report %s; see %s"
            % (play.rc, play.recap, now["pid"], b["pid"], now.get("dropin"),
               {k: rep.get(k) for k in ("tags", "found", "enabled", "restarted")}, play.log))

    # Write the drop-ins, restart later (list mode), at risk asked for
    # ("hit,at_risk": a string, as -e gives it, where a space would end
    # the value) and excluded by a short name; the hosts from the
    # inventory's arenafix_hosts.
    play = fleet.playbook("list", "site.yml", "-e", "arenafix_restart_mode=list",
                          "-e", "arenafix_fix_verdicts=hit,at_risk", "-e", "arenafix_exclude=" + ATRISK[:-8],
                          inventory="[all:vars]\narenafix_hosts=%s\n" % hit.name)
    now = fleet.facts(hit)
    risk2 = fleet.service(hit, ATRISK, ATRISK_READY)
    rep = fleet.report(hit, "rollout") or {}
    r.check("arenafix_hosts=%s in the inventory's [all:vars]: only %s rolled out" % (hit.name, hit.name),
            play.hosts_in("Roll out arenafix") == [hit.name] and play.recap.get(hit.name, {}).get("changed", 0) > 0,
            "hosts of the rollout's play %s, recap %s" % (play.hosts_in("Roll out arenafix"), play.recap))
    r.check("arenafix_restart_mode=list: %s got the drop-in and was not restarted; the report says its restart "
            "is pending" % hit.unit,
            play.rc == 0 and play.clean(hit) and now.get("dropin") and now["pid"] == b["pid"]
            and rep.get("restart_pending") == [hit.unit] and rep.get("restarted") == [],
            "status %d, drop-in %s, PID %s (was %s), report %s; see %s"
            % (play.rc, now.get("dropin"), now["pid"], b["pid"],
               {k: rep.get(k) for k in ("restart_pending", "restarted")}, play.log))
    r.check("arenafix_exclude=%s: at risk and asked for, yet never enabled or restarted" % ATRISK[:-8],
            risk2["pid"] == risk0["pid"] and risk2.get("dropin") is False and rep.get("excluded") == [ATRISK],
            "PID %s (was %s), drop-in %s, report excluded %s" % (risk2["pid"], risk0["pid"], risk2.get("dropin"),
                                                                rep.get("excluded")))

    # At risk on request, restarted: the pending one as well.
    play = fleet.playbook("at-risk", "site.yml", "--limit", hit.name,
                          "-e", json.dumps({"arenafix_fix_verdicts": ["hit", "at risk"]}))
    now = fleet.facts(hit)
    risk3 = fleet.service(hit, ATRISK, ATRISK_READY)
    vr = fleet.inspect(hit, risk3["pid"]) if risk3["pid"] else {}
    vh = fleet.inspect(hit, now["pid"]) if now["pid"] else {}
    r.check("arenafix_fix_verdicts [hit, at risk]: %s and %s restarted, both fine with the library"
            % (ATRISK, hit.unit),
            play.rc == 0 and play.clean(hit) and risk3["pid"] != risk0["pid"] and now["pid"] != b["pid"]
            and vr.get("verdict") == vh.get("verdict") == "fine" and vr.get("libarenafix") is vh.get("libarenafix") is True,
            "status %d; %s PID %s: %s; %s PID %s: %s; see %s"
            % (play.rc, ATRISK, risk3["pid"], vr.get("verdict"), hit.unit, now["pid"], vh.get("verdict"), play.log))

    # A service the library cannot fix (ARENAFIX_MODE=off in its unit),
    # named by the operator (a short name, a string, as -e gives it): its
    # host fails, and with it the batch, which stops the rollout before
    # the next host.
    play = fleet.playbook("stubborn", "site.yml", "--limit", "%s,%s" % (hit.name, calm.name),
                          "-e", "arenafix_services=" + STUBBORN[:-8], "-e", "arenafix_verify_retries=2")
    m = re.search(r"%s \(PID \d+\) after its restart: (\S+)" % re.escape(STUBBORN), play.text)
    r.check("a service still hit after its restart fails its host (-e arenafix_services=%s on %s)"
            % (STUBBORN[:-8], hit.name),
            play.rc != 0 and play.recap.get(hit.name, {}).get("failed") == 1 and m is not None and m.group(1) == "hit:",
            "status %d, recap %s, message %r; see %s" % (play.rc, play.recap, m.group(0) if m else None, play.log))
    r.check("... and stops the rollout: the next batch (%s) is not touched" % calm.name,
            calm.name not in play.recap and "[%s]" % calm.name not in play.text,
            "recap %s" % play.recap)
    rep = fleet.report(hit, "rollout") or {}
    failure = rep.get("failed") or {}
    r.check("... and %s's JSON report says where it failed" % hit.name,
            rep.get("restarted") == [STUBBORN] and "after its restart" in failure.get("task", "")
            and "%s (PID" % STUBBORN in failure.get("message", ""),
            "report %s" % {k: rep.get(k) for k in ("restarted", "failed")})

    # The default threshold, 0, in a batch of two (the inventory's first
    # two hosts: the unknown family's, then the hit one): the failed host
    # stops the rollout though the other one of its batch failed only as
    # ignored (a host that fails inside a block with an "always" section
    # is not counted by max_fail_percentage until that section fails it
    # again).
    stubborn_inventory = "[fleet]\n%s arenafix_services=%s\n" % (hit.name, STUBBORN)
    play = fleet.playbook("threshold-0", "site.yml", "-e", "arenafix_serial=2", "-e", "arenafix_verify_retries=2",
                          inventory=stubborn_inventory)
    r.check("-e arenafix_serial=2: %s fails in a batch with %s, and the rollout stops there: %s is not touched"
            % (hit.name, ODD.name, calm.name),
            play.rc != 0 and play.recap.get(hit.name, {}).get("failed") == 1
            and play.recap.get(ODD.name, {}).get("ignored") == 1 and calm.name not in play.recap
            and play.batches("Roll out arenafix") == 1,
            "status %d, recap %s, %d batches; see %s" % (play.rc, play.recap, play.batches("Roll out arenafix"),
                                                        play.log))

    # The threshold from the inventory, the batch size from -e: with 50%,
    # one failed host of a batch of two lets the rollout go on; the
    # other's ignored failure (the unknown family) is not counted, or
    # the batch would be 100% failed and stop it.
    play = fleet.playbook("threshold", "site.yml", "-e", "arenafix_serial=2", "-e", "arenafix_verify_retries=2",
                          inventory="[all:vars]\narenafix_max_fail_percentage=50\n\n" + stubborn_inventory)
    r.check("arenafix_max_fail_percentage=50 (inventory), -e arenafix_serial=2: %s fails beside %s (ignored, not "
            "counted), the rollout goes on to %s, %s and %s" % (hit.name, ODD.name, calm.name, fixed.name, el.name),
            play.rc != 0 and play.recap.get(hit.name, {}).get("failed") == 1
            and play.recap.get(ODD.name, {}).get("ignored") == 1 and play.clean(calm)
            and play.clean(fixed) and play.clean(el) and play.batches("Roll out arenafix") == 3,
            "status %d, recap %s, %d batches; see %s" % (play.rc, play.recap, play.batches("Roll out arenafix"),
                                                        play.log))

    # Inputs typed: a value of the wrong type fails before anything runs.
    now = {h.name: fleet.facts(h) for h in HOSTS}
    play = fleet.playbook("typed", "site.yml", "-e", "arenafix_verify_retries=many",
                          "-e", "arenafix_restart_mode=interactive")
    r.check("-e arenafix_verify_retries=many -e arenafix_restart_mode=interactive: refused (argument_specs), "
            "nothing changed",
            play.rc != 0 and len(play.recap) > 0
            and all(c["failed"] == 1 and c["changed"] == 0 for c in play.recap.values())
            and "arenafix_verify_retries' is of type" in play.text
            and "arenafix_restart_mode must be one of: automatic, list" in play.text,
            "status %d, recap %s; see %s" % (play.rc, play.recap, play.log))
    same_as(fleet, r, "the refused run", now, HOSTS)

    # The deny-list holds for the rollback's restarts too: the drop-in
    # goes, the restart is the operator's.
    risk4 = fleet.service(hit, ATRISK, ATRISK_READY)
    play = fleet.playbook("rollback-exclude", "rollback.yml", "--limit", hit.name, "-e", "arenafix_exclude=afx-atrisk")
    risk5 = fleet.service(hit, ATRISK, ATRISK_READY)
    last = fleet.facts(hit)
    rep = fleet.report(hit, "rollback") or {}
    r.check("rollback -e arenafix_exclude=afx-atrisk: every drop-in removed, %s restarted, %s not (its restart "
            "pending in the report)" % (hit.unit, ATRISK),
            play.rc == 0 and play.clean(hit) and not last.get("dropin") and risk5.get("dropin") is False
            and last["pid"] != now[hit.name]["pid"] and risk5["pid"] == risk4["pid"]
            and rep.get("restart_pending") == [ATRISK] and hit.unit in rep.get("restarted", []),
            "status %d, %s drop-in %s PID %s (was %s); %s drop-in %s PID %s (was %s); report %s; see %s"
            % (play.rc, hit.unit, last.get("dropin"), last["pid"], now[hit.name]["pid"], ATRISK, risk5.get("dropin"),
               risk5["pid"], risk4["pid"], {k: rep.get(k) for k in ("disabled", "restarted", "restart_pending")},
               play.log))

    # The rollback's purge, by each host's family: apt on the Debian
    # host, rpm -e on the RHEL 9 one (no apt, no dnf there); el's
    # service, fixed again by the threshold run, restarted without it.
    prev = fleet.facts(el)
    play = fleet.playbook("rollback-purge", "rollback.yml", "--limit", "%s,%s" % (hit.name, el.name),
                          "-e", "arenafix_rollback_purge=true")
    gone = {h.name: fleet.facts(h) for h in (hit, el)}
    reps = {h.name: fleet.report(h, "rollback") or {} for h in (hit, el)}
    r.check("rollback -e arenafix_rollback_purge=true: the packages removed on %s (apt) and %s (rpm -e), %s on %s "
            "restarted without the drop-in" % (hit.name, el.name, el.unit, el.name),
            play.rc == 0 and play.clean(hit) and play.clean(el)
            and all(g.get("package") == "" for g in gone.values())
            and all(rep.get("packages") == "purged" for rep in reps.values())
            and prev.get("dropin") and not gone[el.name].get("dropin") and gone[el.name]["pid"] != prev["pid"]
            and gone[el.name].get("arenas") == before[el.name]["arenas"],
            "status %d; packages %s; %s drop-in %s -> %s, PID %s -> %s, %s arenas; see %s"
            % (play.rc, {k: g.get("package") for k, g in gone.items()}, el.name, prev.get("dropin"),
               gone[el.name].get("dropin"), prev["pid"], gone[el.name]["pid"], gone[el.name].get("arenas"), play.log))

    # The fallback, where no hook podman runs is installed: the entry
    # moved aside, inspect gives the hit container the library's mount
    # and LD_PRELOAD (read before the hook's fix is followed: a fixed
    # container has no fix to give).
    moved = "/root/arenafix.json.aside"
    out = fleet.ssh(pods, "mv %s %s && arenafix inspect \"$(podman inspect -f '{{.State.Pid}}' %s)\"; mv %s %s"
                    % (HOOK_JSON, moved, POD, moved, HOOK_JSON), check=False).stdout
    lines = out.split("fix the containers:", 1)[-1].splitlines()[1:] if "fix the containers:" in out else []
    mount_fix = " ".join(l.strip() for l in itertools.takewhile(lambda l: l.startswith("    "), lines)
                         if l.startswith("        "))
    r.check("without the hook's entry, inspect gives %s's container the library's mount and LD_PRELOAD, and the "
            "entry is back" % pods.name,
            re.search(r"^-v '?\S+/libarenafix\.so:\S+/libarenafix\.so:ro'? -e '?LD_PRELOAD=\S+/libarenafix\.so'?$",
                      mount_fix) is not None
            and fleet.ssh(pods, "test -f %s" % HOOK_JSON, check=False).returncode == 0,
            "fix %r; inspect said:\n%s" % (mount_fix, out))
    follow_fix(fleet, r, pods, pod_fix, "the OCI hook's entry installed")
    follow_fix(fleet, r, pods, mount_fix, "no hook entry")


def containers(fleet, r, pods):
    """The container host with its own glibc not skipped, as an
    operator who asks for every host does: the unit that runs the hit
    container is the engine's, never enabled; named, it is refused; and
    a restart of it is never verified on the engine's process."""
    no_skip = json.dumps({"arenafix_skip_glibc": []})
    pod0 = fleet.pod(pods)
    play = fleet.playbook("pods-no-skip", "site.yml", "--limit", pods.name, "-e", no_skip)
    pod1 = fleet.pod(pods)
    rep = fleet.report(pods, "rollout") or {}
    r.check("arenafix_skip_glibc []: %s's hit container is reported, its unit %s neither enabled nor restarted "
            "(the same podman and container)" % (pods.name, pods.unit),
            play.rc == 0 and play.clean(pods) and pod1["pid"] == pod0["pid"] and pod1["podman"] == pod0["podman"]
            and not pod1["dropin"] and rep.get("enabled") == [] and rep.get("restarted") == []
            and [c.get("id") for c in rep.get("containers", [])] == [pod0.get("id")]
            and rep.get("container_units") == [pods.unit],
            "status %d, recap %s, before %s, after %s, report %s; see %s"
            % (play.rc, play.recap, pod0, pod1, {k: rep.get(k) for k in ("enabled", "restarted", "container_units")},
               play.log))

    play = fleet.playbook("pods-named", "site.yml", "--limit", pods.name, "-e", no_skip,
                          "-e", "arenafix_services=" + pods.unit[:-8])
    pod2 = fleet.pod(pods)
    m = re.search(r"%s runs podman container %s \(%s\): arenafix enable reaches podman, never the container; run the "
                  r"container again with: %s; left as it was"
                  % (re.escape(pods.unit), POD, pod0.get("id", "?")[:12], re.escape(HOOK_FIX)), play.text)
    r.check("arenafix_services=%s (a container's unit) on %s: refused before any change, the container and its fix "
            "named" % (pods.unit[:-8], pods.name),
            play.rc != 0 and play.recap.get(pods.name, {}).get("failed") == 1 and m is not None
            and pod2["pid"] == pod0["pid"] and pod2["podman"] == pod0["podman"] and not pod2["dropin"],
            "status %d, recap %s, message %s, after %s; see %s"
            % (play.rc, play.recap, m.group(0) if m else None, pod2, play.log))

    # Stopped, the container is not in the scan: the unit is enabled and
    # restarted as asked, and the verification must look past podman.
    fleet.ssh(pods, "systemctl stop %s" % pods.unit, check=False)
    play = fleet.playbook("pods-stopped", "site.yml", "--limit", pods.name, "-e", no_skip,
                          "-e", "arenafix_services=" + pods.unit[:-8], "-e", "arenafix_verify_retries=2")
    pod3 = fleet.pod(pods)
    m = re.search(r"%s after its restart: process (\d+) pinnedd \(podman container %s, %s\): hit: .*?; the drop-in "
                  r"reached podman, never the container" % (re.escape(pods.unit), POD, "[0-9a-f]{12}"), play.text)
    r.check("%s named while stopped: enabled and restarted, then %s fails: its container's pinnedd is hit (its own "
            "count), whatever podman's process says" % (pods.unit, pods.name),
            play.rc != 0 and play.recap.get(pods.name, {}).get("failed") == 1 and m is not None
            and pod3["pid"] is not None and int(m.group(1)) == pod3["pid"] and pod3["dropin"]
            and pod3["arenas"] < fixed_arenas(pods.threads, cpu_online(fleet, pods)),
            "status %d, recap %s, message %s, container %s; see %s"
            % (play.rc, play.recap, m.group(0) if m else None, pod3, play.log))
    # As the operator would undo it.
    fleet.ssh(pods, "arenafix disable %s && systemctl daemon-reload && systemctl restart %s && "
                    "until [ -s %s ]; do sleep 1; done" % (pods.unit, pods.unit, pods.ready), check=False, timeout=120)


def follow_fix(fleet, r, pods, fix, where):
    """The fix given for the container, followed to the letter (its
    options added to the container's podman run, as an operator edits a
    quadlet's unit): the container's pinnedd gets a fixed glibc's
    count."""
    pod0 = fleet.pod(pods)
    dropin = ("[Service]\nExecStart=\nExecStart=/usr/bin/podman run --rm --name %s --cgroups=split --network none "
              "-v /run/afx-pod:/run/afx-pod %s localhost/afx-pinned /bin/pinnedd --threads %d "
              "--ready-file %s\n" % (POD, fix, pods.threads, pods.ready))
    # The options as given, quotes and all: systemd splits ExecStart= as
    # the shell would.  A unit that fails to start fails this check, not
    # the suite: the wait ends with the unit.
    fleet.ssh(pods, "mkdir -p /etc/systemd/system/%s.d && echo %s | base64 -d >/etc/systemd/system/%s.d/fix.conf && "
                    "systemctl daemon-reload && rm -f %s && systemctl restart %s && "
                    "until [ -s %s ] || ! systemctl is-active -q %s; do sleep 1; done"
              % (pods.unit, base64.b64encode(dropin.encode()).decode(), pods.unit, pods.ready, pods.unit, pods.ready,
                 pods.unit),
              check=False, timeout=120)
    pod1 = fleet.pod(pods)
    online = cpu_online(fleet, pods)
    said = fleet.ssh(pods, "journalctl -q -n 3 --no-pager -u %s; tail -n 2 %s" % (pods.unit, HOOK_LOG),
                     check=False).stdout.strip()
    r.check("the fix for %s's container (%s), followed (%s): its pinnedd gets a fixed glibc's count"
            % (pods.name, where, fix or "none"),
            fix != "" and pod1["pid"] is not None and pod1["pid"] != pod0["pid"]
            and pod1["arenas"] == fixed_arenas(pods.threads, online),
            "before %s; after %s (a fixed glibc makes %d); the unit and hook said:\n%s"
            % (pod0, pod1, fixed_arenas(pods.threads, online), said))


def cpu_online(fleet, h):
    return cpu_count(fleet.ssh(h, "cat /sys/devices/system/cpu/online", check=False).stdout)


def odd_failure(r, step, play, facts, report):
    """The host of an unknown family, first in the inventory: failed
    alone with the role's message, not counted (ignored), nothing left
    on it, its JSON report saying why, and the hosts after it rolled out
    all the same."""
    m = re.search(r"fatal: \[%s\]: FAILED! => .*?\"msg\": \"([^\"]*)\"" % ODD.name, play.text)
    rec = play.recap.get(ODD.name, {})
    r.check("%s: %s (a family the role does not know) fails alone, saying so, and is left as it was"
            % (step, ODD.name),
            m is not None and "installs only on the Debian and RedHat families" in m.group(1)
            and rec.get("failed") == 0 and rec.get("ignored") == 1 and rec.get("changed") == 0
            and facts.get("left") == "0",
            "message %r, recap %s, scratch/cache/command left: %s; see %s"
            % (m.group(1) if m else None, rec, facts.get("left"), play.log))
    r.check("%s: %s's JSON report says why it was left, and that nothing was done there" % (step, ODD.name),
            report is not None and m is not None and report.get("left") == m.group(1)
            and report.get("failed") is False and report.get("installed") == [] and report.get("enabled") == []
            and report.get("restarted") == [],
            "report %s" % report)
    r.check("%s: the hosts after %s were rolled out all the same" % (step, ODD.name),
            all(play.recap.get(h.name, {}).get("ok", 0) > 0 for h in WORKED), "recap %s" % play.recap)


def brief(f):
    return "PID %s, package %r, drop-in %s" % (f.get("pid"), f.get("package"), f.get("dropin"))


def same(f, g):
    return all(f.get(k) == g.get(k) for k in ("pid", "arenas", "package", "dropin"))


def same_as(fleet, r, step, before, hosts, now=None):
    """STEP changed nothing any host's services or packages show."""
    now = now or {h.name: fleet.facts(h) for h in hosts}
    changed = ["%s: before %s; after %s" % (h.name, brief(before[h.name]), brief(now[h.name]))
               for h in hosts if not same(before[h.name], now[h.name])]
    r.check("%s: no service restarted, no package or drop-in changed on any host" % step, not changed,
            "; ".join(changed))


def lint(r, out, ansible):
    if shutil.which("ansible-lint") is None:
        r.skip("ansible-lint", "not installed (Debian's package ansible-lint)")
        return
    res = run(["ansible-lint", "--nocolor", "-p"], check=False, cwd=ansible,
              env=dict(os.environ, ANSIBLE_HOME=os.path.join(out, "ansible-home")))
    r.check("ansible-lint: the role and playbooks pass the production profile", res.returncode == 0,
            res.stdout.strip()[-1500:])


if __name__ == "__main__":
    sys.exit(main())
