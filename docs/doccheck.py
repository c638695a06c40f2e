"""What the documentation checks (docs/check-docs.py, docs/check-synopsis.py)
share: a failure said as one line of its own bytes, a file's lines as awk
and grep read them, and sort(1)'s order in this locale."""

import locale
import sys

# Whether any failure was said: the checks' exit status.
failed = False


def say(line):
    """LINE on standard output as its bytes were, whatever the locale."""
    sys.stdout.buffer.write((line + "\n").encode("utf-8", "surrogateescape"))
    sys.stdout.flush()


def fail(where, what):
    """A failure: "WHERE: WHAT"."""
    fail_line(f"{where}: {what}")


def fail_line(line):
    """A failure worded whole."""
    global failed
    say(line)
    failed = True


def lines(path, complain=False):
    """PATH's lines as awk and grep read them; none if it cannot be read
    (said on standard error with COMPLAIN, as sed would)."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            out = f.read().split("\n")
    except OSError as e:
        if complain:
            print("%s: %s" % (path, e.strerror), file=sys.stderr)
        return []
    return out[:-1] if out[-1] == "" else out


def collate_as_sort():
    """sort(1)'s order: the locale's collation, or C's where the locale
    named is not installed (as sort falls back); only the order of the
    lines said can differ."""
    try:
        locale.setlocale(locale.LC_COLLATE, "")
    except locale.Error:
        pass


def collated(items, unique=False):
    """ITEMS sorted as sort (-u) sorts them (collate_as_sort)."""
    if unique:
        items = set(items)
    return sorted(items, key=locale.strxfrm)
