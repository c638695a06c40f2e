#!/usr/bin/env python3
"""Each subcommand states its options in four places written by hand,
the "Usage:" lines of its --help, its Options block, the usage line of
the error a bad option gets, and the SYNOPSIS of its manual page
(DOCDIR/arenafix-SUB.1, or the page whose NAME lists arenafix-SUB;
help's is arenafix.1).  They must agree:
  - the long options named in the three synopses (--help, the error,
    the page) are the same, and are those of the Options block;
  - every option of the Options block (-a and --all) is on the page,
    and every option the page's OPTIONS section gives a paragraph of is
    in the Options block;
  - --help ends "See arenafix-SUB(1)." (help's: arenafix(1)), and
    arenafix(1)'s SEE ALSO names that page.
The subcommands are those arenafix --help lists.  One line per failure
("WHERE: what"); the exit status says whether any.  ARENAFIX runs once
for its --help and twice a subcommand (its --help, its usage error).
Usage: check-synopsis.py ARENAFIX DOCDIR
"""
import os
import re
import signal
import subprocess
import sys

# The shared part, not compiled to a __pycache__ in the tree.
sys.dont_write_bytecode = True
import doccheck  # noqa: E402
from doccheck import collated, fail

LONG = re.compile(r"--[a-z][a-z-]*")
OPTION = re.compile(r"(^|[^A-Za-z0-9-])(--?[A-Za-z][A-Za-z-]*)")
MACRO = re.compile(r"^\.[A-Za-z][A-Za-z]* *")
FONT = re.compile(r"\\f[BIRP]")
BAD_OPTION = "--no-such-option-at-all"
def decode(data):
    """Output as the shell's $(...) holds it: trailing newlines gone."""
    return data.decode("utf-8", "surrogateescape").rstrip("\n")


def run(argv, stderr=False):
    """ARGV's standard output (or, with stderr, its standard error, the
    output thrown away) and whether it exited 0."""
    try:
        p = subprocess.run(argv, stdout=subprocess.DEVNULL if stderr else subprocess.PIPE,
                           stderr=subprocess.PIPE if stderr else None)
    except OSError as e:
        print("%s: %s" % (argv[0], e.strerror), file=sys.stderr)
        return "", False
    return decode(p.stderr if stderr else p.stdout), p.returncode == 0


def longs(lines):
    """The long options in LINES, sorted, --help left out."""
    return collated((o for line in lines for o in LONG.findall(line) if o != "--help"), unique=True)


def options(lines):
    """The options (-a, --all) in LINES, sorted."""
    return collated((m.group(2) for line in lines for m in OPTION.finditer(line)), unique=True)


def text(line):
    """Roff as text: \\- as -, no font changes, no macro names or quotes."""
    line = FONT.sub("", line.replace("\\-", "-")).replace("\\(dq", "")
    return MACRO.sub("", line, count=1).replace('"', "")


def between(lines, start, end):
    """The lines from one matching START to the next matching END, both
    included, as often as START comes again (sed -n '/START/,/END/p')."""
    out, inside = [], False
    for line in lines:
        if inside:
            out.append(line)
            inside = not end(line)
        elif start(line):
            out.append(line)
            inside = True
    return out


def after_each(lines, pattern):
    """The line after each line that PATTERN matches (sed -n '/P/{n;p;}')."""
    out, i = [], 0
    while i < len(lines):
        if re.match(pattern, lines[i]):
            if i + 1 < len(lines):
                out.append(lines[i + 1])
            i += 1
        i += 1
    return out


def section(lines, name):
    """Section NAME of a page, its .SH line and the line that ends it left out."""
    heading = re.compile(r"^\.SH %s$" % re.escape(name))
    return between(lines, heading.match, lambda line: line.startswith(".SH "))[1:-1]


def synopsis(lines, sub):
    """The lines of a page's SYNOPSIS that give "arenafix SUB", each
    synopsis (the lines between two .br) joined on one line."""
    joined, line = [], ""
    for roff in section(lines, "SYNOPSIS"):
        if roff.startswith(".br"):
            joined.append(line)
            line = ""
        else:
            line += " " + roff
    joined.append(line)
    wanted = re.compile(r"^arenafix %s( |$)" % re.escape(sub))
    out = []
    for line in joined:
        line = re.sub(r"\.[A-Z][A-Z]* ", "", text(line).replace("\\-", "-"))
        line = re.sub(r"^ ", "", re.sub(r"  *", " ", line))
        if wanted.search(line):
            out.append(line)
    return out


def page_of(docs, sub):
    """The page that documents subcommand SUB, or None."""
    if sub == "help":
        return docs + "/arenafix.1"
    page = docs + "/arenafix-%s.1" % sub
    if os.path.isfile(page):
        return page
    names = re.compile(r"(^|[ ,])arenafix-%s([ ,]|$)" % re.escape(sub))
    try:
        pages = sorted(n for n in os.listdir(docs) if n.startswith("arenafix-") and n.endswith(".1"))
    except OSError:
        return None
    for name in pages:
        lines = doccheck.lines(docs + "/" + name, complain=True)
        for line in after_each(lines, r"\.SH NAME"):
            if names.search(line.replace("\\-", "-")):
                return docs + "/" + name
    return None


def subcommands(cli):
    top, ok = run([cli, "--help"])
    if not ok:
        fail(cli, "--help failed")
    block = between(top.split("\n"), lambda line: line.startswith("Subcommands:"), lambda line: line == "")
    subs = []
    for line in block:
        m = re.match(r"  arenafix ([a-z-]*)", line)
        if m and (not subs or subs[-1] != m.group(1)):
            subs.append(m.group(1))
    subs = [s for s in subs if s]
    if not subs:
        fail(cli, "--help lists no subcommand")
    return subs


def help_synopsis(usage, sub):
    """The Usage: line and the lines under it that go on with "arenafix SUB"."""
    out = []
    for n, line in enumerate(usage.split("\n")):
        fields = re.findall(r"[^ \t]+", line)
        if n == 0 and line.startswith("Usage: "):
            out.append(line)
        elif n > 0 and fields[:2] == ["arenafix", sub]:
            out.append(line)
        else:
            break
    return out


def options_block(usage):
    """The Options block of a --help, its first 22 columns."""
    block = between(usage.split("\n"), lambda line: line.startswith("Options:"), lambda line: line == "")[1:]
    return [line.encode("utf-8", "surrogateescape")[:22].decode("utf-8", "surrogateescape") for line in block]


def error_synopsis(cli, sub):
    """The error a bad option gets (help takes any word as a subcommand's
    name: two words are its usage error), and its usage lines."""
    if sub == "help":
        err, _ = run([cli, "help", "probe", "inspect"], stderr=True)
    else:
        err, _ = run([cli, sub, BAD_OPTION], stderr=True)
    out = []
    for line in err.split("\n"):
        m = re.match(r".*; usage: (arenafix .*)", line)
        if m:
            out.append(re.sub(r" \(see .*", "", m.group(1), count=1))
    return err, out


def check_synopses(sub, page, help_syn, err_syn, page_syn, block):
    """The long options of the three synopses and the Options block agree."""
    found = {"help": longs(help_syn), "error": longs(err_syn), "page": longs(page_syn),
             "options": longs(block)}
    every = collated((o for opts in found.values() for o in opts), unique=True)
    what = {"help": "its --help's Usage", "error": "its usage error",
            "page": "the SYNOPSIS of %s" % os.path.basename(page), "options": "its --help's Options"}
    for where in ("help", "error", "page", "options"):
        for opt in every:
            if opt not in found[where]:
                fail(sub, "%s is not in %s" % (opt, what[where]))


def check_page_options(docs, sub, page, lines, block):
    """The Options block against the page, both ways."""
    listed = options(block)
    body = []
    for n, line in enumerate(lines):
        if n > 0 and line.startswith(".SH DESCRIPTION"):
            body = lines[n + 1:]
            break
    on_page = set(options(text(line) for line in body))
    for opt in listed:
        if opt not in on_page:
            fail(page, "%s, which '%s --help' lists, is not on the page" % (opt, sub))
    # (A page of two subcommands, enable's, is checked against the one it
    # is named for, whose options include the other's.)
    if page == docs + "/arenafix-%s.1" % sub:
        tags = after_each(section(lines, "OPTIONS"), r"\.TP")
        for opt in options(text(line) for line in tags):
            if opt not in listed:
                fail(page, "OPTIONS gives %s, which '%s --help' does not list" % (opt, sub))


def check_subcommand(cli, docs, sub, seealso):
    page = page_of(docs, sub)
    if page is None:
        fail(sub, "no page in %s documents it (arenafix-%s.1, or one whose NAME lists arenafix-%s)"
             % (docs, sub, sub))
        return
    usage, ok = run([cli, sub, "--help"])
    if not ok:
        fail(sub, "--help failed")
    help_syn = help_synopsis(usage, sub)
    if not help_syn:
        fail(sub, "'%s --help' does not start with Usage: arenafix %s" % (sub, sub))
    block = options_block(usage)
    err, err_syn = error_synopsis(cli, sub)
    if not err_syn:
        fail(sub, "its usage error gives no usage: %s" % err)
    lines = doccheck.lines(page, complain=True)
    page_syn = synopsis(lines, sub)
    if not page_syn:
        fail(page, "SYNOPSIS has no line arenafix %s" % sub)
    check_synopses(sub, page, help_syn, err_syn, page_syn, block)
    check_page_options(docs, sub, page, lines, block)
    # --help names the page (disable's is enable's, which its NAME lists
    # and make install links), which arenafix(1) names.
    want = "arenafix" if sub == "help" else "arenafix-" + sub
    see = usage.split("\n")[-1]
    if see != "See %s(1)." % want:
        fail(sub, "'%s --help' ends \"%s\", not \"See %s(1).\"" % (sub, see, want))
    if sub != "help" and not any("%s (1)" % want in line for line in seealso):
        fail(docs + "/arenafix.1", "SEE ALSO does not name %s(1)" % want)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.rstrip().split("\n")[-1])
    cli, docs = sys.argv[1:]
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # a closed pipe ends it quietly, as it does sh
    doccheck.collate_as_sort()
    subs = subcommands(cli)
    seealso = [line.replace("\\-", "-") for line in section(doccheck.lines(docs + "/arenafix.1", complain=True), "SEE ALSO")]
    for sub in subs:
        check_subcommand(cli, docs, sub, seealso)
    return 1 if doccheck.failed else 0


if __name__ == "__main__":
    sys.exit(main())
