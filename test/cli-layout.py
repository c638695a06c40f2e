#!/usr/bin/env python3
"""cli/'s layout as cli/README.md says it: each sub-folder in its map,
at most 15 C files a folder, and no include cycle (rules of the house).

A file's #include "x.h" is resolved as the compiler resolves it
(-Icli -Icommon): its own folder's first, then the top of cli/, then
common/ (outside cli/, not followed).  Two graphs are checked:

- files: a module is a .c and its .h ("glibcprobe/jail"); a module that
  includes another's header depends on it.  No module may depend on
  itself through others (hostglibc.c -> probeglibc.h,
  probeglibc.c -> hostglibc.h is such a circle).
- folders: cli/'s sub-folders (probe/, inspect/, ...); one depends on
  another when one of its files includes one of the other's.  No
  folder may depend on itself through others.  The top of cli/ (the
  dispatch and what every part uses) is below them all: it includes
  from no sub-folder but proc/, the parsers (checked here too), and its
  files are in the file graph.

Each cycle found is printed with the includes that make it; the exit
status is 1 if anything is wrong.  Usage: cli-layout.py [CLI_DIR]
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
TOP_MAY_INCLUDE = {"proc"}
MAX_C_FILES = 15


def sources(cli):
    for folder, dirs, files in os.walk(cli):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(folder, name), cli)


def resolve(cli, src, inc):
    here = os.path.dirname(src)
    for cand in (os.path.join(here, inc), inc):
        cand = os.path.normpath(cand)
        if os.path.isfile(os.path.join(cli, cand)):
            return cand
    return None  # common/ or the system's


def module(path):
    return os.path.splitext(path)[0]


def folder(path):
    d = os.path.dirname(path)
    return d.split(os.sep)[0] if d else ""


def cycles(graph):
    """Each strongly connected component of more than one node, or a
    node with an edge to itself (Tarjan's algorithm, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            pushed = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    pushed = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if pushed:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    n = stack.pop()
                    on.discard(n)
                    comp.append(n)
                    if n == node:
                        break
                if len(comp) > 1 or node in graph.get(node, ()):
                    out.append(sorted(comp))
    return out


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else "cli"
    files, folders = {}, {}
    why_file, why_folder = {}, {}
    bad = 0
    for src in sources(cli):
        with open(os.path.join(cli, src), encoding="utf-8", errors="replace") as f:
            text = f.read()
        files.setdefault(module(src), set())
        for inc in INCLUDE.findall(text):
            dst = resolve(cli, src, inc)
            if dst is None:
                continue
            a, b = module(src), module(dst)
            if a != b:
                files[a].add(b)
                why_file.setdefault((a, b), "%s: #include \"%s\"" % (src, inc))
            fa, fb = folder(src), folder(dst)
            if fa == fb:
                continue
            if fa == "":
                if fb not in TOP_MAY_INCLUDE:
                    print("cli/%s: #include \"%s\": the top of cli/ includes from no sub-folder but %s"
                          % (src, inc, ", ".join(sorted(TOP_MAY_INCLUDE))))
                    bad = 1
                continue
            if fb == "":
                continue
            folders.setdefault(fa, set()).add(fb)
            why_folder.setdefault((fa, fb), "%s: #include \"%s\"" % (src, inc))
    with open(os.path.join(cli, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    for sub in sorted(d for d in os.listdir(cli) if os.path.isdir(os.path.join(cli, d))):
        count = len([n for n in os.listdir(os.path.join(cli, sub)) if n.endswith(".c")])
        if count > MAX_C_FILES:
            print("cli/%s/ holds %d C files: at most %d a folder" % (sub, count, MAX_C_FILES))
            bad = 1
        if "| `%s/` |" % sub not in readme:
            print("cli/%s/ has no row in cli/README.md's map (a line starting | `%s/` |)" % (sub, sub))
            bad = 1
    for kind, graph, why in (("files", files, why_file), ("folders", folders, why_folder)):
        for comp in cycles(graph):
            bad = 1
            members = set(comp)
            print("an include cycle between %s: %s" % (kind, ", ".join("cli/" + c for c in comp)))
            for a in comp:
                for b in sorted(graph.get(a, ())):
                    if b in members:
                        print("  cli/%s" % why[(a, b)])
    return bad


if __name__ == "__main__":
    sys.exit(main())
