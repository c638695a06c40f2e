"""make check-role: the Ansible role's scan (ansible/roles/arenafix/tasks/scan.yml)
run by ansible-playbook on this machine (connection local) against a scan
holding each verdict, scan-verdicts.json; role-scan.yml asserts where the
role puts each process.  The scan is first held to what the command writes
(test/cli/scanjson.py: every object with the same keys, null where unknown,
which check-cli holds the command's own output to).  Writes only under
OUTDIR.

    python3 test/fleet/role-scan.py OUTDIR
    python3 test/fleet/role-scan.py --print FILE inspect --all --json   (the role's arenafix_command)
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "test", "cli"))
import scanjson  # noqa: E402

SCAN = os.path.join(HERE, "scan-verdicts.json")


def fake_command(path, args):
    """What `arenafix inspect --all --json` prints, and its exit status."""
    if args != ["inspect", "--all", "--json"]:
        print("role-scan.py: the role ran arenafix %s, not inspect --all --json" % " ".join(args), file=sys.stderr)
        return 2
    with open(path) as f:
        text = f.read()
    sys.stdout.write(text)
    return json.loads(text)["summary"]["exit_status"]


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--print":
        return fake_command(sys.argv[2], sys.argv[3:])
    out = os.path.abspath(sys.argv[1])
    if shutil.which("ansible-playbook") is None:
        print("check-role: 0 passed, 0 failed, 1 skipped (no ansible-playbook: Debian's ansible-core)")
        return 0
    with open(SCAN, "rb") as f:
        doc = json.loads(f.read().decode("ascii"))
    scanjson.check(doc)
    verdicts = {(p["verdict"], p["container_engine"] is not None) for p in doc["processes"]}
    missing = {v for v in scanjson.VERDICT_STATUS} - {v for v, _ in verdicts}
    assert not missing, "%s holds no %s process" % (SCAN, ", ".join(sorted(missing)))

    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "home", "tmp"))
    env = dict(os.environ, ANSIBLE_HOME=os.path.join(out, "home"), ANSIBLE_LOCAL_TEMP=os.path.join(out, "home", "tmp"),
               ANSIBLE_ROLES_PATH=os.path.join(TOP, "ansible", "roles"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_RETRY_FILES_ENABLED="False", ANSIBLE_LOCALHOST_WARNING="False",
               ANSIBLE_INVENTORY_UNPARSED_WARNING="False", ANSIBLE_CONFIG=os.path.join(out, "ansible.cfg"))
    open(env["ANSIBLE_CONFIG"], "w").close()
    command = "%s %s --print %s" % (sys.executable, os.path.abspath(__file__), SCAN)
    log = os.path.join(out, "ansible.log")
    with open(log, "w") as f:
        r = subprocess.run(["ansible-playbook", "-i", "localhost,", "-e", "arenafix_command='%s'" % command,
                            os.path.join(HERE, "role-scan.yml")], env=env, stdout=f, stderr=subprocess.STDOUT,
                           cwd=out, timeout=600)
    if r.returncode != 0:
        with open(log) as f:
            sys.stdout.write(f.read()[-6000:])
        print("check-role: FAIL the role's scan of a host holding each verdict (ansible-playbook exit %d; %s)"
              % (r.returncode, log))
        print("check-role: 0 passed, 1 failed, 0 skipped")
        return 1
    print("check-role: PASS the role's scan of a host holding each verdict (%s)" % ", ".join(sorted(scanjson.VERDICT_STATUS)))
    print("check-role: 1 passed, 0 failed, 0 skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
