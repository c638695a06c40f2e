#!/usr/bin/env python3
"""check-docs.py ARENAFIX: what a reader of the documentation relies on.

- README.md shows a "Try it" block in its first 40 lines, and every
  `arenafix SUB` in it names a subcommand ARENAFIX (the built command)
  has; the two set-up commands for a new machine follow it.
- The runbooks (docs/deploy.md, docs/rollout.md) are instructions: which
  check proves what lives in docs/verified.md, not in them.
- The tiers have one source, test/README.md: its tier table lists
  exactly the Makefile's CHECK_SUITES, SLOW_SUITES and ALL_SUITES (in
  the environment: make check-docs passes them as AFX_CHECK_SUITES,
  AFX_SLOW_SUITES and AFX_ALL_SUITES), its suite table has a row for
  every folder of test/ and every suite of a tier, with that tier, and
  claims no tier the Makefile does not run a suite in; the paragraphs
  of docs/testing.md that say what each tier runs name each of its
  suites.
- Every `make TARGET` in the tree's Markdown (code blocks and code
  spans; HACKING.md's too) and every target in test/README.md's tables
  is one the Makefile has (its database: one `make -pRrq`, nothing
  built; $MAKE if set).
- Every relative link in the tree's Markdown (HACKING.md's too) names a
  file that exists, every link to a heading of another Markdown file
  names one it has (as GitHub makes anchors), and every link in a
  document a package ships names a document shipped beside it
  (debian/*.docs, the spec's %doc lines).

Run from the top of the tree.  One line per failure; the exit status
says whether any.  One program, standard library only: the only
processes it starts are ARENAFIX (--help, and SUB --help for a Try it
subcommand its --help does not name) and make.
"""
import fnmatch
import os
import re
import subprocess
import sys

# The shared part, not compiled to a __pycache__ in the tree.
sys.dont_write_bytecode = True
import doccheck  # noqa: E402
from doccheck import collated, fail, fail_line, lines

README = "README.md"
TESTS = "test/README.md"
TESTING = "docs/testing.md"
RUNBOOKS = ("docs/deploy.md", "docs/rollout.md")
SETUP = ("make deps-demo demo", "make deps check-all")
TIERS = ("check", "check-slow", "check-all")
TIER_ENV = {"check": "AFX_CHECK_SUITES", "check-slow": "AFX_SLOW_SUITES",
            "check-all": "AFX_ALL_SUITES"}
BELOW = {"check-slow": "check", "check-all": "check-slow"}
TIER_HEADER = "| tier | command |"
SUITE_HEADER = "| folder | make target(s) | tier |"
PROOF = re.compile(r"check-host|proved by|tested in|tested that way|item [0-9]",
                   re.I | re.A)
NAME = re.compile(r"[a-z][a-z0-9-]*")
TICK = re.compile(r"`([a-z][a-z0-9-]*)`")
RULE = re.compile(r"[a-zA-Z0-9][^$#/\t=]*:(?:[^=]|\Z)")
SPACE = " \t\n\v\f\r"
LINK = re.compile(r"\]\(([^)%s]+)\)" % SPACE)
HEADING_LINK = re.compile(r"\]\(([^)#%s]+\.md#[^)%s]+)\)" % (SPACE, SPACE))

def fields(line, sep=None):
    """awk's fields: split at runs of blanks, or at each SEP."""
    if sep is not None:
        return line.split(sep)
    return [w for w in re.split(r"[ \t\n]+", line) if w]


def field(line, n):
    """awk's $N with FS '|'."""
    parts = line.split("|")
    return parts[n - 1] if n <= len(parts) else ""


def words(text):
    """The shell's word splitting of an unquoted expansion."""
    return fields(text)


def run(argv, **kw):
    """ARGV's exit status and standard output; 127 if it cannot start."""
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           encoding="utf-8", errors="surrogateescape", **kw)
    except OSError:
        return 127, ""
    return p.returncode, p.stdout


# ---- README.md: the first screen --------------------------------------
def try_block(text):
    """The first and last line numbers of the first fenced block after a
    "Try it" heading, or None."""
    head = first = None
    for n, line in enumerate(text, 1):
        if head is None and re.match(r"#+ +Try it", line):
            head = n
        elif head is not None and first is None and line.startswith("```"):
            first = n
        elif first is not None and line.startswith("```"):
            return first, n
    return None


def check_readme(cmd):
    text = lines(README)
    block = try_block(text)
    if block is None:
        fail(README, 'no "Try it" heading followed by a fenced block')
    else:
        first, last = block
        if last > 40:
            fail(README, f"the Try it block (lines {first}-{last}) does not end within the first 40 lines")
        # sed -n 'A,Bp' prints line A alone when B < A.
        body = text[first:max(last - 1, first + 1)]
        # Every word `arenafix` (a path ending in it too) followed by a
        # word that is not an option or a path: a subcommand.
        subs = set()
        for line in body:
            f = fields(re.sub(r" +#.*", "", line, count=1))
            for i in range(len(f) - 1):
                if re.search(r"(^|/)arenafix\Z", f[i]) and NAME.fullmatch(f[i + 1]):
                    subs.add(f[i + 1])
        if not subs:
            fail(README, "the Try it block runs no arenafix subcommand")
        top = run([cmd, "--help"])[1]
        for sub in collated(subs):
            if re.search(r"arenafix %s( |$)" % re.escape(sub), top, re.M):
                continue
            if run([cmd, sub, "--help"], stdin=subprocess.DEVNULL)[0] == 0:
                continue
            fail(README, f"Try it runs 'arenafix {sub}', which {cmd} neither documents in --help nor accepts with --help")
        tries = sum("arenafix" in line for line in body)
        if tries < 4:
            fail(README, f"the Try it block has {tries} arenafix lines: show probe, inspect --all, a program and a service")
    for setup in SETUP:
        at = next((n for n, line in enumerate(text, 1) if line == setup), None)
        if at is None:
            fail(README, f"the set-up command '{setup}' is not on a line of its own")
        elif at > 60:
            fail(README, f"the set-up command '{setup}' is on line {at}, after the first screen (60 lines)")


# ---- The runbooks are instructions -------------------------------------
def check_runbooks():
    for book in RUNBOOKS:
        text = lines(book)
        for n, line in enumerate(text, 1):
            if PROOF.search(line):
                fail_line(f"{book}:{n}:{line}: which check proves a step belongs in docs/verified.md")
        if not any(re.search(r"\]\(verified.md\)", line) for line in text):
            fail(book, "no link to verified.md")


# ---- The tiers: test/README.md against the Makefile ---------------------
def make_targets():
    """The Makefile's targets, as ' t1 t2 ... ': its database, nothing
    built (-q)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    make = os.environ.get("MAKE") or "make"
    out = run([make, "-pRrq", "-f", "Makefile", "afx-no-such-target"], env=env)[1]
    found, skip = set(), False
    for line in out.split("\n"):
        if line.startswith("# Not a target"):
            skip = True
            continue
        if RULE.match(line) and not skip:
            found.add(line.split(":", 1)[0])
        skip = False
    return " " + " ".join(collated(found)) + " "


def tier_of(tier):
    """The suites the Makefile runs in TIER, beyond the one below it."""
    return os.environ.get(TIER_ENV.get(tier, ""), "")


def table(text, header):
    """The rows of test/README.md's table whose header line starts with
    HEADER."""
    rows, on, i = [], False, 0
    while i < len(text):
        line = text[i]
        if line.startswith(header):
            on, i = True, i + 2
            continue
        if on and line.startswith("|"):
            rows.append(line)
        elif on:
            break
        i += 1
    return rows


def echoed(rows):
    """printf '%s\\n' "$ROWS" of what $(...) kept: one empty line for none."""
    return rows or [""]


def sorted_words(text):
    """tr ' ' '\\n' | grep . | sort | tr '\\n' ' ', the last blank dropped."""
    return " ".join(collated(w for w in re.split(r"[ \n]", text) if w))


def check_tier_table(tiers):
    for tier in TIERS:
        rows = [r for r in echoed(tiers) if field(r, 2).strip(" ") == tier]
        if not rows:
            fail(TESTS, f"the tier table has no row for {tier}")
            continue
        command = "\n".join(field(r, 3).replace(" ", "") for r in rows).rstrip("\n")
        if command != f"`make{tier}`":
            fail(TESTS, f"tier {tier}: its command is {command}, not `make {tier}`")
        runs = "\n".join(field(r, 4) for r in rows).rstrip("\n")
        listed = TICK.findall(runs)
        if tier in BELOW:
            if f"`{BELOW[tier]}` + " not in runs:
                fail(TESTS, f"tier {tier}: its suites do not start with `{BELOW[tier]}` +")
            listed = [s for s in listed if s != BELOW[tier]]
        want = sorted_words(tier_of(tier))
        got = sorted_words("\n".join(listed))
        if want != got:
            fail(TESTS, f"tier {tier} lists {got}, the Makefile runs {want}")


def claims_of(suites):
    """The suite table's claims, (suite, tier): "TIER" or "TIER
    (`target`, ...)" parts of the tier column, split at ";"; a part
    without a target covers the row's targets (those of its target
    column outside parentheses, which hold the parts of a target) that
    no other part names."""
    out = []
    for row in echoed(suites):
        targets = TICK.findall(re.sub(r"\([^)]*\)", "", field(row, 3)))
        parts = field(row, 4).split(";")
        named = {t for p in parts for t in TICK.findall(p)}
        for part in parts:
            p = part.lstrip(" ")
            if not re.match(r"check(-slow|-all)?([ (]|\Z)", p):
                continue
            tier = re.sub(r"[ (].*", "", p, count=1, flags=re.S)
            mine = TICK.findall(p)
            out += [(t, tier) for t in mine]
            if not mine:
                out += [(t, tier) for t in targets if t not in named]
    return out


def check_suite_table(tiers, suites, is_target):
    claims = claims_of(suites)
    for tier in TIERS:
        for suite in words(tier_of(tier)):
            if (suite, tier) not in claims:
                fail(TESTS, f"make {tier} runs {suite}, which no row of the suite table puts in tier {tier}")
    for suite, tier in claims:
        if f" {suite} " not in " " + tier_of(tier).rstrip("\n") + " ":
            fail(TESTS, f"the suite table puts {suite} in tier {tier}, which the Makefile does not run it in")
    named = (t for r in echoed(tiers) + echoed(suites) for t in TICK.findall(field(r, 3) + " " + field(r, 4)))
    for target in collated(named, unique=True):
        if not is_target(target):
            fail(TESTS, f"names `{target}`, which is no target of the Makefile")
    for row in echoed(suites):
        if not TICK.search(field(row, 3)):
            fail(TESTS, f"the suite table's row {field(row, 2).strip(' ' + chr(9))} names no make target")
    folders = sorted(d for d in os.listdir("test") if not d.startswith(".") and os.path.isdir(os.path.join("test", d)))
    columns = {field(r, 2).strip(" ") for r in echoed(suites)}
    for d in folders:
        if "test/" + d not in columns:
            fail(TESTS, f"the suite table has no row for test/{d}")


def check_testing():
    """docs/testing.md: what each tier runs, in prose; each suite named."""
    text = lines(TESTING)
    for tier in TIERS:
        start = f"`make {tier}` " + ("runs" if tier == "check" else "adds")
        at = next((i for i, line in enumerate(text) if line.startswith(start)), None)
        if at is None:
            fail(TESTING, f"no paragraph starting {start}")
            continue
        para = []
        for line in text[at:]:
            if line == "":
                break
            para.append(line)
        para = " ".join(para) + " "
        for suite in words(tier_of(tier)):
            if f"`{suite}`" not in para and f"`make {suite}`" not in para:
                fail(TESTING, f"the paragraph on `make {tier}` does not name `{suite}`, which it runs")


# ---- make commands in the Markdown -------------------------------------
def markdown():
    """The tree's Markdown (build/ and .git/ aside), as sorted paths './x'."""
    found = []
    for folder, dirs, files in os.walk("."):
        for name in dirs + files:
            path = os.path.join(folder, name)
            if fnmatch.fnmatchcase(name, "*.md") and not path.startswith(("./build/", "./.git/")):
                found.append(path)
        if folder == ".":
            dirs[:] = [d for d in dirs if d not in ("build", ".git")]
    return collated(found)


def code(text):
    """The code of a Markdown file: fenced and indented blocks' lines,
    code spans."""
    fence = False
    for line in text:
        if re.match(r" *```", line):
            fence = not fence
        elif fence or line.startswith("    "):
            yield line
        else:
            yield from re.findall(r"`([^`]+)`", line)


def make_commands(text):
    """Each `make` in the code and the targets after it: words until one
    that is not an option, a VAR=value or a target's name."""
    for line in code(text):
        f = fields(line.split("#", 1)[0])
        for i, word in enumerate(f):
            if word != "make":
                continue
            for w in f[i + 1:]:
                if w.startswith("-") or "=" in w:
                    continue
                if not NAME.fullmatch(w):
                    break
                yield w


def check_make_commands(mds, is_target):
    for md in mds:
        for target in collated(make_commands(lines(md)), unique=True):
            if not is_target(target):
                fail(md[2:], f"runs make {target}, which is no target of the Makefile")


# ---- Links -------------------------------------------------------------
def links(text):
    """The relative targets of the Markdown links, without their #anchor."""
    out = []
    for line in text:
        for m in LINK.finditer(line):
            target = m.group(1).split("#", 1)[0]
            if target and not re.fullmatch(r"[a-z]+:.*", target, re.S):
                out.append(target)
    return out


def anchors(text):
    """The anchors of the headings, as GitHub makes them."""
    out = set()
    for line in text:
        m = re.match(r"#{1,6} +", line)
        if m:
            title = line[m.end():].translate(str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                                                            "abcdefghijklmnopqrstuvwxyz"))
            out.add(re.sub(r"[^a-z0-9 _-]", "", title).replace(" ", "-"))
    return out


def check_links(mds):
    headings = {}
    for md in mds:
        text = lines(md)
        folder = os.path.dirname(md)
        for target in links(text):
            if not os.path.exists(f"{folder}/{target}"):
                fail(md[2:], f"links to {target}, which is not in the tree")
        # A link to a heading of another Markdown file: that heading exists.
        for line in text:
            for m in HEADING_LINK.finditer(line):
                link = m.group(1)
                if re.match(r"[a-z]+:", link):
                    continue
                target, anchor = link.split("#", 1)
                path = f"{folder}/{target}"
                if not os.path.isfile(path):
                    continue
                if path not in headings:
                    headings[path] = anchors(lines(path))
                if anchor not in headings[path]:
                    fail(md[2:], f"links to {link}: {target} has no heading {anchor}")


def shipped():
    """(package, ' doc doc ...'): what each package installs side by side
    in /usr/share/doc/PACKAGE."""
    out = []
    for docs in sorted(d for d in os.listdir("debian") if d.endswith(".docs") and not d.startswith(".")):
        listed = "".join(w + " " for w in lines(os.path.join("debian", docs)))
        out.append(("debian/" + docs[:-len(".docs")], " " + listed))
    pkg = ""
    for line in lines("rpm/arenafix.spec"):
        if line.startswith("%files"):
            pkg = line
        if line.startswith("%doc "):
            out.append(("rpm " + pkg, "".join(" " + w for w in fields(line)[1:])))
    return out


def check_shipped():
    """Every link in a shipped document names a document shipped beside
    it.  README.md is the repository's front page: its links are to the
    tree."""
    for pkg, listed in shipped():
        for doc in words(listed):
            if doc == "README.md" or doc.endswith(".svg"):
                continue
            for target in links(lines(doc)):
                if f" docs/{target} " not in f" {listed} " and f" {target} " not in f" {listed} ":
                    fail(doc, f"links to {target}, which {pkg} does not ship beside it")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check-docs.py ARENAFIX")
    doccheck.collate_as_sort()
    check_readme(sys.argv[1])
    check_runbooks()
    targets = make_targets()
    if targets == "  ":
        fail("Makefile", "make -pq lists no target")

    def is_target(name):
        return f" {name} " in targets

    if not all(tier_of(t) for t in TIERS):
        fail(sys.argv[0], "AFX_CHECK_SUITES, AFX_SLOW_SUITES and AFX_ALL_SUITES are not all set (make check-docs sets them)")
    text = lines(TESTS)
    tiers = table(text, TIER_HEADER)
    if not tiers:
        fail(TESTS, f"no tier table (a header starting '{TIER_HEADER}')")
    suites = table(text, SUITE_HEADER)
    if not suites:
        fail(TESTS, f"no suite table (a header starting '{SUITE_HEADER}')")
    check_tier_table(tiers)
    check_suite_table(tiers, suites, is_target)
    check_testing()
    mds = markdown()
    check_make_commands(mds, is_target)
    check_links(mds)
    check_shipped()
    if not doccheck.failed:
        print("docs: the README's first screen, the runbooks, the tiers, every make command and every link hold")
    return 1 if doccheck.failed else 0


if __name__ == "__main__":
    sys.exit(main())
