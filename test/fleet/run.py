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

The package folder holds two releases of each package, of both kinds
(releases.sh): every host must get the newer, and keep it.

The services are pinnedd (test/host/progs), which counts its own arenas
with malloc_info and writes the count to its ready file: that count, not
arenafix's word, says whether a service is hit.  See test/fleet/README.md.
"""

import argparse
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


class Host:
    def __init__(self, name, port, affected, unit, ready, threads, os="debian"):
        self.name = name
        self.os = os              # mkhost.sh's FLEET_OS
        self.port = port
        self.affected = affected
        self.unit = unit          # its workload service
        self.ready = ready        # the service's ready file (pinnedd)
        self.threads = threads    # the service's threads besides main
        self.proc = None          # systemd-nspawn
        self.dir = None
        self.boot_s = None

    @property
    def root(self):
        return os.path.join(self.dir, "root")


HOSTS = [
    Host("afx-odd", 2205, False, None, None, 0, os="other"),
    Host("afx-hit", 2201, True, "afx-pinned.service", "/run/afx-pinned.ready", 32),
    Host("afx-calm", 2202, True, "afx-spread.service", "/run/afx-spread.ready", 4),
    Host("afx-fixed", 2203, False, "afx-pinned.service", "/run/afx-pinned.ready", 32),
    Host("afx-el", 2204, True, "afx-pinned.service", "/run/afx-pinned.ready", 32, os="el"),
]
ODD, HIT, CALM, FIXED, EL = HOSTS
# The hosts with a workload, judged by its own count.
WORKED = [h for h in HOSTS if h.unit]
RPM_LIB = "/usr/lib64/arenafix/libarenafix.so"
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
            r = run(["sh", os.path.join(HERE, "mkhost.sh"), h.root, h.name, str(h.port),
                     self.a.affected if h.affected else "fixed", self.key + ".pub", self.a.progs] + units,
                    check=False, env=dict(os.environ, FLEET_OS=h.os))
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
            h.proc = subprocess.Popen(
                ["systemd-nspawn", "--quiet", "-D", h.root, "-M", h.name, "-b", "--register=no", "--keep-unit",
                 "--console=read-only", "--network-namespace-path=/run/netns/" + NETNS,
                 "--resolv-conf=off", "--timezone=off", "--link-journal=no"],
                stdin=subprocess.DEVNULL, stdout=console, stderr=subprocess.STDOUT, start_new_session=True)
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
            raise RuntimeError("not up within %d s: %s" % (BOOT_TIMEOUT_S, " ".join(h.name for h in waiting)))
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
        run(["ip", "netns", "delete", NETNS], check=False)

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

    def inspect(self, h, pid):
        r = self.ssh(h, "arenafix inspect --json %d" % pid, check=False)
        try:
            return json.loads(r.stdout)
        except ValueError:
            return {"verdict": "(no JSON: %s)" % r.stdout.strip()[:200]}

    def playbook(self, step, playbook, *extra):
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
        cmd = in_netns(["ansible-playbook", "-i", self.inventory, os.path.join(TOP, "ansible", playbook),
                        "-e", "arenafix_deb_dir=" + os.path.abspath(self.a.debs)] + list(extra))
        t0 = time.monotonic()
        r = run(cmd, check=False, env=env)
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

    def changed(self, h):
        return self.recap.get(h.name, {}).get("changed")

    def clean(self, h):
        """Reached, nothing failed."""
        c = self.recap.get(h.name)
        return c is not None and c["unreachable"] == 0 and c["failed"] == 0

    def recap_lines(self):
        return [line for line in self.text.splitlines() if self.RECAP.match(line)]

    def reports(self):
        """The role's report of each host (the "Report" task's output)."""
        out, keep = [], False
        for line in self.text.splitlines():
            if line.startswith(("TASK [", "PLAY [", "PLAY RECAP")):
                keep = line.startswith("TASK [") and "Report" in line
                continue
            if keep and line.strip():
                out.append(line)
        return out


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
    sys.stdout.flush()
    hit, calm, fixed, el = HIT, CALM, FIXED, EL
    online = before[hit.name]["online"]
    for h in (hit, el):
        r.check("before: %s on %s is hit (pinnedd's own count)" % (h.unit, h.name),
                before[h.name]["arenas"] < fixed_arenas(h.threads, online),
                "%d arenas, a fixed glibc makes %d" % (before[h.name]["arenas"], fixed_arenas(h.threads, online)))
    for h in (calm, fixed):
        r.check("before: %s on %s is not hit" % (h.unit, h.name),
                before[h.name]["arenas"] == fixed_arenas(h.threads, online),
                "%d arenas" % before[h.name]["arenas"])

    lint(r, fleet.out)

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
    same_as(fleet, r, "--check", before, WORKED)

    # The rollout.
    play = fleet.playbook("first", "site.yml")
    notes.append("%s: first rollout: %.0f s" % (SUITE, play.seconds))
    print("\n%s: the role's report of each host, first run:" % SUITE)
    print("\n".join(play.reports()))
    print("\n".join(play.recap_lines()))
    r.check("rollout: ends with success on every host", play.rc == 0 and all(play.clean(h) for h in HOSTS),
            "status %d, recap: %s; see %s" % (play.rc, play.recap, play.log))
    after = {h.name: fleet.facts(h) for h in HOSTS}
    odd_failure(r, "rollout", play, after[ODD.name])
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
    r.check("rollout: no scratch directory left on any host",
            not any(after[h.name].get("scratch") for h in WORKED),
            ", ".join("%s %s" % (h.name, after[h.name].get("scratch")) for h in WORKED))

    # Again: nothing to do.
    play = fleet.playbook("second", "site.yml")
    notes.append("%s: second rollout: %.0f s" % (SUITE, play.seconds))
    print("\n%s: the role's report of each host, second run:" % SUITE)
    print("\n".join(play.reports()))
    print("\n".join(play.recap_lines()))
    r.check("second rollout: changed=0 on every host, nothing failed",
            play.rc == 0 and all(play.clean(h) and play.changed(h) == 0 for h in HOSTS),
            "status %d, recap: %s; see %s" % (play.rc, play.recap, play.log))
    again = {h.name: fleet.facts(h) for h in HOSTS}
    same_as(fleet, r, "second rollout", after, WORKED, again)
    odd_failure(r, "second rollout", play, again[ODD.name])

    play = fleet.playbook("check-after", "site.yml", "--check")
    r.check("--check after the rollout: nothing would change",
            play.rc == 0 and all(play.clean(h) and play.changed(h) == 0 for h in HOSTS),
            "status %d, recap: %s; see %s" % (play.rc, play.recap, play.log))

    # Rollback.
    play = fleet.playbook("rollback", "rollback.yml")
    notes.append("%s: rollback: %.0f s" % (SUITE, play.seconds))
    print("\n%s: rollback:" % SUITE)
    print("\n".join(play.recap_lines()))
    r.check("rollback: ends with success on every host; changes only %s and %s" % (hit.name, el.name),
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
    v = fleet.inspect(hit, back[hit.name]["pid"]) if back[hit.name]["pid"] else {}
    r.check("rollback: arenafix inspect on %s says %s is hit" % (hit.name, hit.unit),
            v.get("verdict") == "hit", "%s: %s" % (v.get("verdict"), v.get("reason")))
    play = fleet.playbook("rollback-again", "rollback.yml")
    r.check("rollback again: changed=0 on every host",
            play.rc == 0 and all(play.clean(h) and play.changed(h) == 0 for h in HOSTS),
            "status %d, recap: %s; see %s" % (play.rc, play.recap, play.log))

    # A service the library cannot fix (ARENAFIX_MODE=off in its unit),
    # named by the operator: its host fails, and with it the batch, which
    # stops the rollout before the next host.
    play = fleet.playbook("stubborn", "site.yml", "--limit", "%s,%s" % (hit.name, calm.name),
                          "-e", json.dumps({"arenafix_services": [STUBBORN], "arenafix_verify_retries": 2}))
    m = re.search(r"%s \(PID \d+\) after its restart: (\S+)" % re.escape(STUBBORN), play.text)
    r.check("a service still hit after its restart fails its host (%s on %s)" % (STUBBORN, hit.name),
            play.rc != 0 and play.recap.get(hit.name, {}).get("failed") == 1 and m is not None and m.group(1) == "hit:",
            "status %d, recap %s, message %r; see %s" % (play.rc, play.recap, m.group(0) if m else None, play.log))
    r.check("... and stops the rollout: the next batch (%s) is not touched" % calm.name,
            calm.name not in play.recap and "[%s]" % calm.name not in play.text,
            "recap %s" % play.recap)


def odd_failure(r, step, play, facts):
    """The host of an unknown family, first in the inventory: failed
    alone with the role's message, not counted (ignored), nothing left
    on it, and the hosts after it rolled out all the same."""
    m = re.search(r"fatal: \[%s\]: FAILED! => .*?\"msg\": \"([^\"]*)\"" % ODD.name, play.text)
    rec = play.recap.get(ODD.name, {})
    r.check("%s: %s (a family the role does not know) fails alone, saying so, and is left as it was"
            % (step, ODD.name),
            m is not None and "installs only on the Debian and RedHat families" in m.group(1)
            and rec.get("failed") == 0 and rec.get("ignored") == 1 and rec.get("changed") == 0
            and facts.get("left") == "0",
            "message %r, recap %s, scratch/cache/command left: %s; see %s"
            % (m.group(1) if m else None, rec, facts.get("left"), play.log))
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


def lint(r, out):
    if shutil.which("ansible-lint") is None:
        r.skip("ansible-lint", "not installed (Debian's package ansible-lint)")
        return
    res = run(["ansible-lint", "--nocolor", "-p"], check=False, cwd=os.path.join(TOP, "ansible"),
              env=dict(os.environ, ANSIBLE_HOME=os.path.join(out, "ansible-home")))
    r.check("ansible-lint: the role and playbooks pass the production profile", res.returncode == 0,
            res.stdout.strip()[-1500:])


if __name__ == "__main__":
    sys.exit(main())
