#!/usr/bin/env python3
"""No product function is over MAX lines (cli/README.md's house rules):
a longer one is split into the steps it takes.  A function is what C at the margin opens with a "{" line of its
own after its signature and closes with a "}" line at the margin (the
project's style, clang-format's); its length counts the lines from its
signature's first to the closing brace.  Prints each function over the
bound, longest first; exit status 1 if any.
Usage: funclen.py [MAX] DIR...
"""
import os
import re
import sys

SIGNATURE = re.compile(r"^[A-Za-z_][^;=]*\(")


def functions(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    start = None
    for i, line in enumerate(lines):
        if line == "{" and i > 0:
            j = i - 1
            while j > 0 and lines[j] and not SIGNATURE.match(lines[j]) and lines[j][0] in " \t":
                j -= 1
            m = re.search(r"(\w+)\s*\(", lines[j]) if SIGNATURE.match(lines[j]) else None
            start = (j, m.group(1) if m else "?") if m else None
        elif line == "}" and start is not None:
            yield start[1], start[0] + 1, i - start[0] + 1
            start = None


def main():
    args = sys.argv[1:]
    limit = 100
    if args and args[0].isdigit():
        limit = int(args.pop(0))
    long = []
    for top in args:
        for folder, dirs, files in os.walk(top):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".c"):
                    path = os.path.join(folder, name)
                    for func, line, n in functions(path):
                        if n > limit:
                            long.append((n, path, line, func))
    for n, path, line, func in sorted(long, reverse=True):
        print("%s:%d: %s is %d lines, over %d: split it" % (path, line, func, n, limit))
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main())
