#!/bin/sh
# make check-containers, containerd's drop-in: deploy/containerd/arenafix-containerd-config
# run on configurations in the build directory, read back by the real
# containerd (`containerd --config FILE config dump`, which merges the
# imports as the daemon does, without starting it), then a private
# containerd started on the result (its root, state and sockets in the
# build directory) to show that it parses and the CRI plugin loads.
#
#   containerdconf.sh BUILD_DIR [SCRIPT]
#
# BUILD_DIR two folders below the build's top or deeper: the Makefile
# reads BUILD/*/*/*.d as dependency files, and the configurations here
# have folders named conf.d.
#
# SCRIPT: the installer (deploy/containerd/arenafix-containerd-config).
set -u
work=$1 script=${2:-$(dirname "$0")/../../deploy/containerd/arenafix-containerd-config}
part=containerd-config
. "$(dirname "$0")/lib.sh"
command -v containerd >/dev/null 2>&1 && command -v ctr >/dev/null 2>&1 \
    || { skip "containerd and ctr are not installed (docker.io's containerd package)"; summary; }
# Debian 12's python3 (3.11): tomllib reads the dump.
py=/usr/bin/python3
"$py" -c "import tomllib" 2>/dev/null || { skip "no python3 with tomllib (3.11 or later)"; summary; }
rm -rf "$work" && mkdir -p "$work" || exit 1
t0=$(date +%s)
cri='plugins."io.containerd.grpc.v1.cri"'

# A node's configuration with CRI settings of its own: a sandbox image,
# runc's SystemdCgroup, another runtime (crun), a registry mirror.
# node DIR [SYSTEMD]: it as DIR/config.toml (SystemdCgroup SYSTEMD, true
# by default).
node() {
    rm -rf "$1" && mkdir -p "$1"
    cat >"$1/config.toml" <<EOF
version = 2
root = "$1/root"
state = "$1/state"

[grpc]
  address = "$1/containerd.sock"

[$cri]
  sandbox_image = "registry.example.com/pause:3.9"
  [$cri.containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    [$cri.containerd.runtimes.runc.options]
      SystemdCgroup = ${2:-true}
  [$cri.containerd.runtimes.crun]
    runtime_type = "io.containerd.runc.v2"
    [$cri.containerd.runtimes.crun.options]
      BinaryName = "/usr/bin/crun"
  [$cri.registry.mirrors."docker.io"]
    endpoint = ["https://mirror.example.com"]
EOF
    chmod 0640 "$1/config.toml"
}
# dumped DIR: containerd's merged configuration of DIR/config.toml, as
# the facts this test asserts, one per line (python's reading of the TOML).
dumped() {
    containerd --config "$1/config.toml"  config dump 2>"$work/dump.err" | "$py" -c '
import sys, tomllib
c = tomllib.loads(sys.stdin.read())["plugins"]["io.containerd.grpc.v1.cri"]
r = c["containerd"]["runtimes"]
print("sandbox_image", c["sandbox_image"])
print("mirror", ",".join(c.get("registry", {}).get("mirrors", {}).get("docker.io", {}).get("endpoint", [])))
for n in sorted(r):
    o = r[n].get("options", {})
    print("runtime", n, r[n]["runtime_type"], "BinaryName=" + str(o.get("BinaryName", "")),
          "SystemdCgroup=" + str(o.get("SystemdCgroup", "")).lower(),
          "pod_annotations=" + ",".join(r[n].get("pod_annotations", [])),
          "container_annotations=" + ",".join(r[n].get("container_annotations", [])))'
}
want_custom() {
    printf '%s\n' "sandbox_image registry.example.com/pause:3.9" "mirror https://mirror.example.com" \
        "runtime crun io.containerd.runc.v2 BinaryName=/usr/bin/crun SystemdCgroup= pod_annotations= container_annotations=" \
        "runtime runc io.containerd.runc.v2 BinaryName= SystemdCgroup=$1 pod_annotations= container_annotations="
}
arenafix_line() {
    echo "runtime arenafix io.containerd.runc.v2 BinaryName=/usr/bin/arenafix-runtime SystemdCgroup=$1 pod_annotations=io.arenafix.enable container_annotations=io.arenafix.enable"
}
# snap DIR: every file under DIR with its mode and bytes' sum.
snap() { (cd "$1" && find . -path ./root -prune -o -path ./state -prune -o -type f -print | sort | xargs -r sha256sum; find . -path ./root -prune -o -path ./state -prune -o -printf '%p %m\n' | sort); }

# ---- 1. The fact the drop-in is built around -------------------------
# A drop-in holding only the arenafix entry: containerd 1.6/1.7 take the
# imported file's CRI section in place of the main file's whole.
n=$work/fact
node "$n"
mkdir -p "$n/conf.d"
sed -i "2i imports = [\"$n/conf.d/*.toml\"]" "$n/config.toml"
printf 'version = 2\n[%s.containerd.runtimes.arenafix]\n  runtime_type = "io.containerd.runc.v2"\n' "$cri" >"$n/conf.d/only.toml"
got=$(dumped "$n")
echo "containerd: $(containerd --version)"
if echo "$got" | grep -q '^sandbox_image registry.example.com/pause:3.9$'; then
    echo "NOTE: this containerd merges an imported CRI section key by key (the drop-in's copy is then not needed)"
else
    pass "a drop-in holding only the runtime entry loses the node's CRI settings on this containerd: $(echo "$got" | grep '^sandbox_image\|^runtime' | tr '\n' ';')"
fi

# ---- 2. install on a node with its own CRI settings -------------------
n=$work/node
node "$n"
before=$(dumped "$n")
cp -p "$n/config.toml" "$work/original.toml"
if out=$(sh "$script" install --config "$n/config.toml" 2>&1); then
    got=$(dumped "$n")
    want=$( (want_custom true; arenafix_line true) | sort)
    if [ "$(echo "$got" | sort)" = "$want" ] && [ "$(echo "$before" | sort)" = "$(want_custom true | sort)" ]; then
        pass "install: containerd's dump keeps the sandbox image, the mirror, runc's SystemdCgroup=true and crun, and adds arenafix (BinaryName arenafix-runtime, SystemdCgroup=true, io.arenafix.enable passed on)"
    else
        fail "install: containerd's dump is $(echo "$got" | tr '\n' ';') want $(echo "$want" | tr '\n' ';')"
    fi
    echo "$out" | grep -q 'restart containerd' && pass "install says that containerd must be restarted: $(echo "$out" | tail -n 1)" \
        || fail "install did not say containerd must be restarted: $out"
    [ "$(stat -c %a "$n/config.toml")" = 640 ] && [ "$(stat -c %a "$n/conf.d/zz-arenafix.toml")" = 600 ] \
        && grep -q "^imports = \[\"$n/conf.d/\*.toml\"\]$" "$n/config.toml" \
        && pass "install: the main file imports $n/conf.d/*.toml, its mode kept (640); the drop-in 600 (a copy of the CRI section)" \
        || fail "install: modes $(stat -c '%n %a' "$n/config.toml" "$n/conf.d/zz-arenafix.toml" | tr '\n' ' '), imports: $(grep imports "$n/config.toml")"
else
    fail "install refused a version 2 configuration: $out"
fi
s1=$(snap "$n")
if out=$(sh "$script" install --config "$n/config.toml" 2>&1) && [ "$(snap "$n")" = "$s1" ]; then
    pass "install twice: every file as after the first ($(echo "$out" | head -n 1))"
else
    fail "install twice changed the files: $out"
fi

# ---- 3. A private containerd on the result: it parses, CRI loads ---------
(cd "$n" && containerd --config "$n/config.toml" >"$n/containerd.log" 2>&1 & echo $! >"$n/pid")
cpid=$(cat "$n/pid")
loaded=
for _ in $(seq 1 300); do
    loaded=$(ctr --address "$n/containerd.sock" plugins ls 2>/dev/null | awk '$2 == "cri" { print $NF }')
    [ -n "$loaded" ] && break
    kill -0 "$cpid" 2>/dev/null || break
    sleep 0.1
done
kill "$cpid" 2>/dev/null
for _ in $(seq 1 300); do kill -0 "$cpid" 2>/dev/null || break; sleep 0.1; done
kill -9 "$cpid" 2>/dev/null
grep -o " $n/[^ ]*" /proc/self/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
[ "$loaded" = ok ] && grep -q 'runtimes.*arenafix\|arenafix-runtime' "$n/containerd.log" \
    && pass "containerd started on the result (its own root, state, socket): the CRI plugin loads (ok) with the arenafix handler in its logged configuration" \
    || fail "containerd on the result: CRI plugin '$loaded'; log: $(grep -i 'level=error\|level=fatal\|cri' "$n/containerd.log" | tail -n 5)"
rm -rf "$n/root" "$n/state" "$n"/containerd.sock*

# ---- 4. remove ----------------------------------------------------
if out=$(sh "$script" remove --config "$n/config.toml" 2>&1) && cmp -s "$n/config.toml" "$work/original.toml" \
    && [ "$(stat -c %a "$n/config.toml")" = 640 ] && ! [ -e "$n/conf.d" ] \
    && [ "$(ls "$n" | tr '\n' ' ')" = "config.toml containerd.log pid " ]; then
    pass "remove: the main file's bytes and mode as before install, the drop-in and the conf.d install made gone, no backup left"
else
    fail "remove left: $(ls -la "$n" "$n/conf.d" 2>&1 | tr '\n' ' '); $(diff "$work/original.toml" "$n/config.toml"); $out"
fi

# ---- 5. Other configurations -----------------------------------------
# runc without SystemdCgroup (cgroupfs): arenafix's false too; an
# imports line of the node's own kept, the glob appended.
n=$work/cgroupfs
node "$n" false
mkdir -p "$n/other"
printf 'version = 2\n[plugins."io.containerd.grpc.v1.cri".cni]\n  conf_dir = "/etc/cni/other"\n' >"$n/other/cni.toml"
sed -i "2i imports = [\"$n/other/cni.toml\"]" "$n/config.toml"
cp -p "$n/config.toml" "$work/cgroupfs.toml"
if out=$(sh "$script" install --config "$n/config.toml" 2>&1); then
    got=$(dumped "$n")
    conf=$(containerd --config "$n/config.toml" config dump 2>/dev/null | "$py" -c '
import sys, tomllib; print(tomllib.loads(sys.stdin.read())["plugins"]["io.containerd.grpc.v1.cri"]["cni"]["conf_dir"])')
    echo "$got" | grep -qxF "$(arenafix_line false)" && [ "$conf" = /etc/cni/other ] \
        && grep -q "^imports = \[\"$n/other/cni.toml\", \"$n/conf.d/\*.toml\"\]$" "$n/config.toml" \
        && pass "install on runc without SystemdCgroup: arenafix's false; the node's own imports kept and read first (cni conf_dir $conf), the glob appended" \
        || fail "install with SystemdCgroup=false and an import: $(echo "$got" | grep arenafix), cni $conf, $(grep imports "$n/config.toml")"
    sh "$script" remove --config "$n/config.toml" >/dev/null 2>&1
    cmp -s "$n/config.toml" "$work/cgroupfs.toml" && pass "remove: the one-line imports as it was" \
        || fail "remove: $(diff "$work/cgroupfs.toml" "$n/config.toml")"
else
    fail "install with an imports line: $out"
fi

# No main file (containerd's defaults): install writes one, remove takes it away.
n=$work/nofile
rm -rf "$n" && mkdir -p "$n/etc"
if out=$(sh "$script" install --config "$n/etc/config.toml" 2>&1) && got=$(dumped "$n/etc") \
    && echo "$got" | grep -qxF "$(arenafix_line false)" && echo "$got" | grep -q '^sandbox_image registry.k8s.io/pause'; then
    sh "$script" remove --config "$n/etc/config.toml" >/dev/null 2>&1
    [ -z "$(ls -A "$n/etc")" ] && pass "no main file: install writes one importing the drop-in (containerd's defaults kept), remove leaves the directory empty as before" \
        || fail "no main file: remove left $(ls -A "$n/etc")"
else
    fail "no main file: $out; $(dumped "$n/etc")"
fi

# Refused, nothing changed: version 1 (its plugin names differ),
# imports over several lines, a drop-in not install's; and remove after
# the operator changed the main file leaves it.
refused() { # NAME WHAT MESSAGE: DIR NAME prepared, install must refuse
    s=$(snap "$work/$1")
    if out=$(sh "$script" install --config "$work/$1/config.toml" 2>&1); then
        fail "install took $2"
    elif [ "$(snap "$work/$1")" = "$s" ] && echo "$out" | grep -q -- "$3"; then
        pass "install refuses $2, nothing changed: $(echo "$out" | head -n 1)"
    else
        fail "install refused $2 but: $out; changed: $(snap "$work/$1")"
    fi
}
node "$work/v1" && sed -i '/^version = 2$/d' "$work/v1/config.toml"
refused v1 "a version 1 configuration" "no top-level 'version = 2'"
node "$work/multi" && sed -i "2i imports = [\n  \"$work/multi/x.toml\",\n]" "$work/multi/config.toml"
refused multi "an imports array over several lines" "span several lines"

n=$work/edited
node "$n"
sh "$script" install --config "$n/config.toml" >/dev/null 2>&1
echo '# the operator was here' >>"$n/config.toml"
cp -p "$n/config.toml" "$work/edited.toml"
out=$(sh "$script" remove --config "$n/config.toml" 2>&1)
cmp -s "$n/config.toml" "$work/edited.toml" && ! [ -e "$n/conf.d/zz-arenafix.toml" ] && echo "$out" | grep -q 'changed since install' \
    && pass "remove after the main file was changed: the drop-in removed, the main file left and said: $(echo "$out" | grep 'changed since')" \
    || fail "remove after an edit: $out"
mkdir -p "$n/conf.d" && printf '# the operator'"'"'s own\nversion = 2\n' >"$n/conf.d/99-arenafix.toml"
out=$(sh "$script" remove --config "$n/config.toml" 2>&1)
[ -e "$n/conf.d/99-arenafix.toml" ] && echo "$out" | grep -q "not arenafix-containerd-config's" \
    && pass "remove leaves a 99-arenafix.toml it did not write: $out" || fail "remove of another's file: $out"

# ---- 6. Beside other drop-ins ---------------------------------------------
# NVIDIA's toolkit's drop-in (nvidia-ctk runtime configure
# --runtime=containerd): its own CRI section, conf.d/99-nvidia.toml.
nvidia() { # DIR: the drop-in in DIR/conf.d
    mkdir -p "$1/conf.d"
    cat >"$1/conf.d/99-nvidia.toml" <<EOF
version = 2
[$cri]
  sandbox_image = "registry.example.com/pause:nv"
  [$cri.containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    [$cri.containerd.runtimes.runc.options]
      SystemdCgroup = true
  [$cri.containerd.runtimes.nvidia]
    runtime_type = "io.containerd.runc.v2"
    [$cri.containerd.runtimes.nvidia.options]
      BinaryName = "/usr/bin/nvidia-container-runtime"
      SystemdCgroup = true
EOF
}
# installed_keeps NAME WHAT: install on $work/NAME gives containerd's dump before plus arenafix.
installed_keeps() {
    before=$(dumped "$work/$1")
    if out=$(sh "$script" install --config "$work/$1/config.toml" 2>&1); then
        got=$(dumped "$work/$1")
        if [ "$(echo "$got" | sort)" = "$( (echo "$before"; arenafix_line true) | sort)" ] && ! echo "$out" | grep -q NOTE; then
            pass "install $2: containerd's dump as before ($(echo "$before" | grep '^sandbox_image'), $(echo "$before" | grep -c '^runtime') runtimes) plus arenafix"
        else
            fail "install $2: dump before $(echo "$before" | tr '\n' ';') after $(echo "$got" | tr '\n' ';'); $out"
        fi
    else
        fail "install $2 refused: $out"
    fi
}
# The node's conf.d not imported yet: containerd reads the main file's
# CRI section (pause:3.9) and goes on doing so.
node "$work/nv-new" && nvidia "$work/nv-new"
installed_keeps nv-new "on a node with NVIDIA's 99-nvidia.toml not imported yet"
# Imported already: NVIDIA's CRI section is containerd's (its runtime nvidia).
node "$work/nv-in" && nvidia "$work/nv-in" && sed -i "2i imports = [\"$work/nv-in/conf.d/*.toml\"]" "$work/nv-in/config.toml"
installed_keeps nv-in "on a node that imports NVIDIA's 99-nvidia.toml"
echo "$got" | grep -q '^runtime nvidia .*BinaryName=/usr/bin/nvidia-container-runtime' \
    && pass "install beside NVIDIA's imported drop-in: its runtime nvidia kept" || fail "the runtime nvidia lost: $got"
# A drop-in read after install's with a CRI section: refused.
node "$work/late" && mkdir -p "$work/late/conf.d" \
    && printf 'version = 2\n[%s]\n  sandbox_image = "late/pause:1"\n' "$cri" >"$work/late/conf.d/zzz-late.toml"
refused late "a drop-in read after its own with a CRI section" "zzz-late.toml read after"
# One the node's own imports read after the glob: the result has no
# arenafix entry, and every file goes back as it was (conf.d, made by
# install, gone again).
n=$work/after && node "$n" && printf 'version = 2\n[%s]\n  sandbox_image = "after/pause:1"\n' "$cri" >"$n/after.toml" \
    && sed -i "2i imports = [\"$n/conf.d/*.toml\", \"$n/after.toml\"]" "$n/config.toml"
refused after "a node whose own import read after the drop-ins replaces the CRI section" "has no arenafix entry"
# containerd's dump of the result failing (a containerd that dumps no
# configuration once the main file imports the drop-ins): the main file,
# its backup, the drop-in and conf.d all taken back.
printf '#!/bin/sh\ngrep -q "added by arenafix-containerd-config" "$2" && exit 1\nexec containerd "$@"\n' >"$work/failing-containerd"
node "$work/undo"
s=$(snap "$work/undo")
out=$(sh "$script" install --config "$work/undo/config.toml" --containerd "sh $work/failing-containerd" 2>&1)
if [ $? = 1 ] && [ "$(snap "$work/undo")" = "$s" ] && echo "$out" | grep -q 'every file as it was'; then
    pass "install whose check of the result fails: exit 1, the main file, the drop-in, the backup and conf.d as before ($(echo "$out" | tail -n 1 | cut -c1-90))"
else
    fail "install whose check of the result fails: $out; files now $(snap "$work/undo")"
fi
# An earlier install's drop-in (99-arenafix.toml): install replaces it
# by zz-arenafix.toml, remove takes it away.
n=$work/old && node "$n" && cp -p "$n/config.toml" "$work/old.toml"
sh "$script" install --config "$n/config.toml" >/dev/null 2>&1 && mv "$n/conf.d/zz-arenafix.toml" "$n/conf.d/99-arenafix.toml"
out=$(sh "$script" remove --config "$n/config.toml" 2>&1)
cmp -s "$n/config.toml" "$work/old.toml" && ! [ -e "$n/conf.d" ] \
    && pass "remove after an earlier install (99-arenafix.toml): it removed, the main file as before" || fail "remove of 99-arenafix.toml: $out; $(ls -A "$n" "$n/conf.d")"
sh "$script" install --config "$n/config.toml" >/dev/null 2>&1 && mv "$n/conf.d/zz-arenafix.toml" "$n/conf.d/99-arenafix.toml"
out=$(sh "$script" install --config "$n/config.toml" 2>&1)
[ "$(ls "$n/conf.d" | tr '\n' ' ')" = "zz-arenafix.toml " ] && dumped "$n" | grep -qxF "$(arenafix_line true)" \
    && pass "install over an earlier install's 99-arenafix.toml: zz-arenafix.toml alone, arenafix in the dump" \
    || fail "install over 99-arenafix.toml: $(ls "$n/conf.d"); $out"
# CRLF line ends (containerd reads them): refused, said so.
node "$work/crlf" && sed -i 's/$/\r/' "$work/crlf/config.toml"
containerd --config "$work/crlf/config.toml" config dump 2>/dev/null | grep -q 'pause:3.9' \
    || echo "NOTE: this containerd does not read a CRLF config.toml"
refused crlf "a main file with CRLF line ends" "has CRLF line ends: not handled"

echo "check-containers (containerd-config): $(($(date +%s) - t0)) s"
summary
