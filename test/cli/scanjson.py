"""Check one `arenafix inspect --all --json` document, as a monitoring
system would read it: ASCII only, valid JSON, a summary that agrees with
the processes listed.  Then print one line per process, tab-separated:
PID, verdict, then name, exe and systemd unit as JSON (ASCII; null when
none), for the test to look up.  Exit 1 with the reason if anything is wrong.

    python3 scanjson.py FILE
"""
import json
import sys

VERDICT_STATUS = {"hit": 3, "at risk": 4, "cannot tell": 5, "fine": 0, "unreadable": None}
# Every process's object has these keys, null where unknown: a reader
# (the Ansible role's selectattr) may take any key from any of them.
# test/fleet/scan-verdicts.json, the role's scan, is checked against them.
KEYS = ("verdict", "exit_status", "reason", "pid", "name", "exe", "unit", "user_unit", "container_engine",
        "container_id", "container_name", "pod_namespace", "pod_name", "pod_container", "rootless_owner_uid", "own_root",
        "threads", "threads_narrowed", "online_cpus",
        "online_list", "isolated_list", "nohz_full_list", "libc", "glibc", "glibc_state", "glibc_note",
        "glibc_executed", "libarenafix", "libarenafix_mode", "foreign_malloc", "arena_limit_set", "arenas_estimated",
        "arenas_counted", "fix_command")
NOT_LISTED = ("gone", "single_threaded", "kernel_threads", "no_glibc", "other_malloc")


def check(doc):
    procs, summary = doc["processes"], doc["summary"]
    assert set(doc) == {"processes", "summary"}, "top-level keys: %s" % sorted(doc)
    counts = {v: 0 for v in VERDICT_STATUS}
    for p in procs:
        assert tuple(p) == KEYS, "pid %s (%s): keys %s, not %s" % (p.get("pid"), p.get("verdict"), list(p), list(KEYS))
        assert p["verdict"] in VERDICT_STATUS, "verdict %r" % p["verdict"]
        assert p["exit_status"] == VERDICT_STATUS[p["verdict"]], p
        assert isinstance(p["pid"], int) and p["pid"] > 0, p
        assert isinstance(p["reason"], str) and p["reason"], p
        assert p["unit"] is None or (isinstance(p["unit"], str) and p["unit"]), p
        if p["verdict"] == "unreadable":
            unknown = [k for k in KEYS[6:] if p[k] is not None and not k.endswith("_list") and
                       k not in ("online_cpus", "glibc_executed")]
            assert not unknown, "unreadable, yet %s known: %s" % (unknown, p)
            assert p["glibc_executed"] is False, p
        else:
            assert isinstance(p["user_unit"], bool) and (p["unit"] is not None or not p["user_unit"]), p
        counts[p["verdict"]] += 1
    pids = [p["pid"] for p in procs]
    assert len(pids) == len(set(pids)), "a process listed twice"
    assert summary["listed"] == len(procs), "listed %d, %d objects" % (summary["listed"], len(procs))
    for verdict, key in (("hit", "hit"), ("at risk", "at_risk"), ("cannot tell", "cannot_tell"), ("fine", "fine"),
                         ("unreadable", "unreadable")):
        assert summary[key] == counts[verdict], "%s: summary %d, listed %d" % (key, summary[key], counts[verdict])
    fixed = sum(1 for p in procs if p["verdict"] == "fine" and p["libarenafix"] and p["libarenafix_mode"] != "off")
    assert summary["fixed"] == fixed, "fixed: summary %d, listed %d" % (summary["fixed"], fixed)
    assert summary["processes"] == len(procs) + sum(summary[k] for k in NOT_LISTED), summary
    worst = 3 if counts["hit"] else 4 if counts["at risk"] else 5 if counts["cannot tell"] else 0
    assert summary["exit_status"] == worst, "exit_status %d, worst %d" % (summary["exit_status"], worst)


def main():
    raw = open(sys.argv[1], "rb").read()
    try:
        raw.decode("ascii")
        doc = json.loads(raw)
        check(doc)
    except (AssertionError, KeyError, TypeError, ValueError) as e:
        print("scanjson: %s: %r" % (type(e).__name__, e))
        return 1
    print("processes:")
    for p in doc["processes"]:
        print("%d\t%s\t%s\t%s\t%s" % (p["pid"], p["verdict"], json.dumps(p["name"]), json.dumps(p["exe"]),
                                    json.dumps(p["unit"])))
    print("exit_status=%d" % doc["summary"]["exit_status"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
