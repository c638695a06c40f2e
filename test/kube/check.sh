#!/bin/sh
# make check-kube: the Kubernetes manifests of deploy/kubernetes/,
# validated by what installs here (no control plane does), then their
# node image built and their containers run in podman
# (deploy/kubernetes/README.md).
#
#   check.sh BUILD_DIR KUBECTL ARENAWAIT AFFECTED_GLIBC_DIR DEB_DIR
#
# KUBECTL is Debian's (kubernetes-client), "" where there is none.
# DEB_DIR holds the project's .debs for the image ("" to skip that part).
# Its images and containers are named afxkube-PID-*, removed at the end.
set -u
work=$1 kubectl=$2 prog=$3 affected=$4 debs=$5
tag=afxkube-$$
src=$(pwd)/deploy/kubernetes
. "$(dirname "$0")/../containers/lib.sh"
summary() {
    echo "check-kube: $passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
    exit $?
}
py=/usr/bin/python3
t0=$(date +%s)
rm -rf "$work" && mkdir -p "$work"

# ---- 1. What kubectl reads, offline --------------------------------
# kubectl's create and apply need a server even with --dry-run=client
# (they ask it for the kind's resource); a --local edit does not: it
# parses each file as apply would (YAML to JSON, every object's
# apiVersion, kind and typed metadata) and prints the objects.
# kread FILE OUT: kubectl's JSON of FILE in OUT; its complaint in OUT.err.
kread() {
    KUBECONFIG=/dev/null "$kubectl" annotate --local --dry-run=client -o json -f "$1" afx-check=1 >"$2" 2>"$2.err"
}
manifests="arenafix-node.yaml pinned-workload.yaml runtimeclass.yaml"
have_kubectl=false
if [ -n "$kubectl" ] && "$kubectl" version --client >/dev/null 2>&1; then
    have_kubectl=true
    echo "check-kube: $("$kubectl" version --client --short 2>/dev/null || "$kubectl" version --client)"
    for m in $manifests; do
        if kread "$src/$m" "$work/$m.json"; then
            pass "kubectl reads $m: $("$py" -c '
import json, sys
t, at, d, n = open(sys.argv[1]).read(), 0, json.JSONDecoder(), []
while t[at:].strip():
    o, at = d.raw_decode(t, at + len(t[at:]) - len(t[at:].lstrip()))
    n.append(o["kind"])
print(", ".join(n))' "$work/$m.json")"
        else
            fail "kubectl refuses $m: $(cat "$work/$m.json.err")"
        fi
    done
    # An annotation whose value is YAML's boolean, not the string "true".
    sed 's/io.arenafix.enable: "true"/io.arenafix.enable: true/' "$src/pinned-workload.yaml" >"$work/bool.yaml"
    if kread "$work/bool.yaml" "$work/bool.json"; then
        fail "kubectl took an annotation whose value is a boolean"
    else
        pass "kubectl refuses the annotation written as an unquoted true: $(head -c 120 "$work/bool.json.err")..."
    fi
else
    skip "no Debian kubectl (kubernetes-client): the manifests are not read by kubectl"
fi

# ---- 2. The API's schema ---------------------------------------------
# schema.py: each object against the OpenAPI definitions of Debian's
# python3-kubernetes; then the mutants it must refuse.
if $have_kubectl && "$py" -c 'import kubernetes.client' 2>/dev/null; then
    for m in $manifests; do
        [ -s "$work/$m.json" ] || continue
        if out=$("$py" "$(dirname "$0")/schema.py" "$work/$m.json" 2>&1); then
            pass "$m: every field, type and required field as Kubernetes' OpenAPI definitions say"
        else
            fail "$m against the schema: $out"
        fi
    done
    # refused FILE SED WHAT MESSAGE: FILE changed by SED, read by
    # kubectl, must fail the schema check with MESSAGE.
    refused() {
        sed "$2" "$src/$1" >"$work/mutant.yaml"
        cmp -s "$src/$1" "$work/mutant.yaml" && { fail "the mutant '$3' changes nothing in $1"; return; }
        if ! kread "$work/mutant.yaml" "$work/mutant.json"; then
            fail "kubectl refused the mutant '$3' before the schema: $(cat "$work/mutant.json.err")"
        elif out=$("$py" "$(dirname "$0")/schema.py" "$work/mutant.json" 2>&1); then
            fail "the schema check took $1 with $3"
        elif echo "$out" | grep -q -- "$4"; then
            pass "the schema check refuses $1 with $3: $(echo "$out" | head -n 1 | sed 's/^[^:]*: //')"
        else
            fail "the schema check refused $1 with $3, but not for it: $out"
        fi
    }
    refused arenafix-node.yaml 's/hostPID:/hostPid:/' "a misspelt field (hostPid)" "spec.hostPid: unknown field of V1PodSpec"
    refused arenafix-node.yaml 's/readOnlyRootFilesystem: true/readOnlyRootFilesystem: "yes"/' \
        "a string for a boolean" 'readOnlyRootFilesystem: "yes" is not of type bool'
    refused arenafix-node.yaml '/^  selector:$/,/^  updateStrategy:$/{/^  updateStrategy:$/!d}' \
        "no selector (required)" 'selector`, must not be `None`'
    refused arenafix-node.yaml 's|^apiVersion: apps/v1$|apiVersion: v1|' \
        "a DaemonSet in the core group" "the API creates no kind DaemonSet at apiVersion v1"
    refused arenafix-node.yaml 's/^  name: arenafix$/  name: arenafix\n  namespace: default/' \
        "a namespace for a Namespace" "a namespace given to a kind that has none"
    refused pinned-workload.yaml 's/cpu: "4"/cpu: ["4"]/' "a list for a quantity" 'is not of type str'
    refused pinned-workload.yaml 's/runtimeClassName:/runtimeClass:/' "a misspelt runtimeClassName" "spec.runtimeClass: unknown field of V1PodSpec"
    refused runtimeclass.yaml 's|^apiVersion: node.k8s.io/v1$|apiVersion: v1|' "a RuntimeClass in the core group" \
        "the API creates no kind RuntimeClass at apiVersion v1"
    refused runtimeclass.yaml '/^handler:/d' "no handler (required)" 'handler`, must not be `None`'
else
    skip "no kubectl or no python3-kubernetes for /usr/bin/python3: no schema check"
fi

# ---- 3. What the examples promise ------------------------------------
# The pinned pod is Guaranteed with whole CPUs (what the static CPU
# manager policy gives exclusive CPUs to) and carries the annotation the
# hook's entry matches; the DaemonSet sees the host's PIDs, runs nothing
# privileged and installs where its script says.
if $have_kubectl && [ -s "$work/pinned-workload.yaml.json" ] && [ -s "$work/arenafix-node.yaml.json" ]; then
    if out=$("$py" - "$work/pinned-workload.yaml.json" "$work/arenafix-node.yaml.json" \
            "$(cat "$(dirname "$0")/../../cli/hook/oci-hook.json.in")" "$work/runtimeclass.yaml.json" <<'PY'
import json, re, sys
def objs(path):
    t, at, d, out = open(path).read(), 0, json.JSONDecoder(), []
    while t[at:].strip():
        o, at = d.raw_decode(t, at + len(t[at:]) - len(t[at:].lstrip()))
        out.append(o)
    return out
bad = []
pods = {o["metadata"]["name"]: o for o in objs(sys.argv[1]) if o["kind"] == "Pod"}
when = json.loads(sys.argv[3])["when"]["annotations"]
crio, ctrd = pods.get("pinned-example-crio", {}), pods.get("pinned-example-containerd", {})
ann = crio.get("metadata", {}).get("annotations", {})
if not any(re.search(k, a) and re.search(v, ann[a]) for k, v in when.items() for a in ann):
    bad.append(f"the CRI-O pod's annotations {ann} match not the hook's {when}")
rc = [o for o in objs(sys.argv[4]) if o["kind"] == "RuntimeClass"]
# The handler is the runtime entry arenafix-containerd-config writes.
if not rc or rc[0]["handler"] != "arenafix" or ctrd.get("spec", {}).get("runtimeClassName") != rc[0]["metadata"]["name"]:
    bad.append(f"the containerd pod's runtimeClassName {ctrd.get('spec', {}).get('runtimeClassName')} is not the RuntimeClass whose handler is arenafix ({rc})")
for c in [c for p in pods.values() for c in p["spec"]["containers"]]:
    req, lim = c.get("resources", {}).get("requests", {}), c.get("resources", {}).get("limits", {})
    for r in ("cpu", "memory"):
        if r not in lim or req.get(r, lim[r]) != lim[r]:
            bad.append(f"{c['name']}: {r} requests {req.get(r)} and limits {lim.get(r)} differ: not Guaranteed")
    if not re.fullmatch(r"[1-9][0-9]*", str(lim.get("cpu", ""))):
        bad.append(f"{c['name']}: cpu {lim.get('cpu')} is not whole CPUs: no exclusive CPUs")
ds = [o for o in objs(sys.argv[2]) if o["kind"] == "DaemonSet"][0]
spec = ds["spec"]["template"]["spec"]
if spec.get("hostPID") is not True or spec.get("hostNetwork"):
    bad.append("the DaemonSet must see the host's PIDs, and need not its network")
for c in spec.get("initContainers", []) + spec["containers"]:
    sc = c.get("securityContext", {})
    if sc.get("privileged") or sc.get("allowPrivilegeEscalation") is not False:
        bad.append(f"{c['name']} is privileged or may gain privileges")
    if "ALL" not in sc.get("capabilities", {}).get("drop", []):
        bad.append(f"{c['name']} keeps the runtime's default capabilities")
    want = {"scan": ["SYS_PTRACE", "DAC_READ_SEARCH"], "install": ["SYS_CHROOT"]}.get(c["name"], [])
    if sc.get("capabilities", {}).get("add", []) != want:
        bad.append(f"{c['name']} adds {sc.get('capabilities', {}).get('add')}, not {want}")
vols = {v["name"]: v.get("hostPath", {}).get("path") for v in spec["volumes"]}
init = spec["initContainers"][0]
env = {e["name"]: e.get("value") for e in init.get("env", [])}
if vols.get("node-dir") != env.get("ARENAFIX_NODE_DIR"):
    bad.append(f"node-dir {vols.get('node-dir')} is not ARENAFIX_NODE_DIR {env.get('ARENAFIX_NODE_DIR')}")
if vols.get("hooks-dir") not in ("/etc/containers/oci/hooks.d", "/usr/share/containers/oci/hooks.d"):
    bad.append(f"hooks-dir {vols.get('hooks-dir')} is no directory CRI-O reads by default")
# A directory made where there was none says "containerd here" to the
# next reader of the node (and is never removed): not for /etc/containerd.
for v in spec["volumes"]:
    h = v.get("hostPath", {})
    if h.get("type") == "DirectoryOrCreate" and (h["path"] + "/").startswith("/etc/containerd/"):
        bad.append(f"the volume {v['name']} makes {h['path']} on a node without containerd")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
    ); then
        pass "the pinned pods are Guaranteed with whole CPUs, CRI-O's with the hook's annotation, containerd's with the RuntimeClass whose handler is arenafix; the DaemonSet sees host PIDs, nothing privileged, every capability dropped but the scan's two and the install's SYS_CHROOT"
    else
        fail "the examples: $out"
    fi
fi

# ---- 4. The scrape config, with the alert rules as they are ------------
# Debian's Prometheus is built without Kubernetes service discovery: its
# promtool checks the job with its kubernetes_sd_configs block (two
# lines, role: pod) taken out, and says so.
if command -v promtool >/dev/null 2>&1; then
    { cat "$src/prometheus-scrape.yml"; printf 'rule_files:\n  - %s\n' "$(cd "$src/../.." && pwd)/monitor/arenafix-alerts.yml"; } >"$work/prometheus-k8s.yml"
    if promtool check config "$work/prometheus-k8s.yml" >"$work/promtool-k8s.out" 2>&1; then
        pass "promtool check config: the scrape job as it is, and monitor/arenafix-alerts.yml loaded beside it"
    elif grep -q 'field kubernetes_sd_configs not found' "$work/promtool-k8s.out"; then
        skip "this promtool has no Kubernetes discovery (Debian's): its kubernetes_sd_configs block is not checked"
        sed '/^    kubernetes_sd_configs:$/{N;/\n      - role: pod$/d}' "$work/prometheus-k8s.yml" >"$work/prometheus.yml"
        if [ "$(diff "$work/prometheus-k8s.yml" "$work/prometheus.yml" | grep -c '^<')" != 2 ]; then
            fail "the scrape job's kubernetes_sd_configs block is not the two lines expected"
        elif out=$(promtool check config "$work/prometheus.yml" 2>&1); then
            pass "promtool check config: the scrape job (its relabelling, its name) but its discovery, and monitor/arenafix-alerts.yml loaded beside it"
        else
            fail "promtool check config: $out"
        fi
    else
        fail "promtool check config: $(cat "$work/promtool-k8s.out")"
    fi
    grep -q '^  - job_name: node$' "$src/prometheus-scrape.yml" && grep -q 'up{job="node"}' monitor/arenafix-alerts.yml \
        && pass "the job is named node, as the rules' ArenafixMetricsAbsent selects" \
        || fail "the scrape job's name is not the rules' job=\"node\""
    sed 's/relabel_configs:/relabel_config:/' "$work/prometheus-k8s.yml" >"$work/prometheus-bad.yml"
    promtool check config "$work/prometheus-bad.yml" >"$work/promtool-bad.out" 2>&1 \
        && fail "promtool took a misspelt relabel_configs" \
        || { grep -q 'field relabel_config not found' "$work/promtool-bad.out" \
            && pass "promtool refuses the scrape job with a misspelt field (relabel_config)" \
            || fail "promtool refused the misspelt job for another reason: $(cat "$work/promtool-bad.out")"; }
else
    skip "no promtool (prometheus): the scrape config is not checked"
fi

# ---- 5. The node image and its containers, in podman ---------------------
real() {
    [ "$(id -u)" -eq 0 ] || { skip "needs root (rootful podman): no image built"; return; }
    for p in podman runc debootstrap; do
        command -v "$p" >/dev/null 2>&1 || { skip "$p is not installed: no image built"; return; }
    done
    [ -n "$debs" ] && ls "$debs"/arenafix_*.deb "$debs"/libarenafix_*.deb >/dev/null 2>&1 \
        || { skip "no .debs in '$debs': no image built"; return; }
    [ -e "$affected/libc.so.6" ] || { skip "no affected glibc at $affected"; return; }
    # podman's defaults exceed what a root without CAP_SYS_RESOURCE may
    # set, and kube play takes no --ulimit: a containers.conf of ours.
    printf '[containers]\ndefault_ulimits = ["nofile=4096:4096", "nproc=8192:8192"]\n[engine]\nruntime = "runc"\n' >"$work/containers.conf"
    CONTAINERS_CONF=$work/containers.conf
    export CONTAINERS_CONF

    # debian:bookworm, which no registry serves here: debootstrap's
    # minbase, kept in the build directory for later runs.
    base=$(dirname "$work")/kube-bookworm
    mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' 2>/dev/null |
             awk '$2 == "bookworm" { print $1; exit }')
    if ! [ -s "$base/rootfs.tar" ] || [ "$(cat "$base/mirror" 2>/dev/null)" != "$mirror" ]; then
        rm -rf "$base" && mkdir -p "$base"
        echo "check-kube: debootstrap bookworm from $mirror (kept in $base)"
        debootstrap --variant=minbase bookworm "$base/rootfs" "$mirror" >"$base/debootstrap.log" 2>&1 \
            && rm -rf "$base/rootfs/var/cache/apt/archives/"*.deb \
            && tar -C "$base/rootfs" --numeric-owner -cf "$base/rootfs.tar" . && echo "$mirror" >"$base/mirror" \
            || { tail -n 20 "$base/debootstrap.log"; fail "debootstrap of bookworm failed"; return; }
        rm -rf "$base/rootfs"
    fi
    pm import "$base/rootfs.tar" "localhost/$tag-bookworm" >/dev/null 2>"$work/import.log" \
        || { fail "podman import of bookworm: $(cat "$work/import.log")"; return; }

    # The Containerfile as it is; FROM's debian:bookworm is the one above.
    mkdir -p "$work/ctx" && cp "$debs"/*.deb "$work/ctx/"
    if pm build --runtime runc --pull=never --from "localhost/$tag-bookworm" -f "$src/Containerfile" \
            -t "localhost/$tag-node" "$work/ctx" >"$work/build.log" 2>&1; then
        got=$(pm run --rm $run_opts "localhost/$tag-node" sh -c 'arenafix --version; dpkg-query -W -f "\${Package} \${Version}\n" arenafix libarenafix' 2>&1)
        echo "$got" | grep -q "^arenafix $(dpkg-deb -f "$debs"/arenafix_*.deb Version)\$" \
            && echo "$got" | grep -q '^libarenafix ' \
            && pass "podman build of the Containerfile FROM debian:bookworm (debootstrap's): arenafix and libarenafix installed: $(echo "$got" | tr '\n' ' ')" \
            || { fail "the image's packages: $got"; return; }
    else
        tail -n 20 "$work/build.log"; fail "podman build of the Containerfile"; return
    fi

    # The DaemonSet's pod, run by podman kube play: its template as a
    # pod, the image this one, the node's directories moved into
    # $work/node (the host's / stays, read-only), restartPolicy Never
    # (podman 4.3 restarts its init containers under Always; the scan
    # loops by itself).
    # ds_pod NODE ROOT NAME: that pod, the node's directories in NODE,
    # its / (the volume host-root) ROOT, as $work/NAME.json.
    ds_pod() {
        mkdir -p "$1/opt/arenafix" "$1/hooks.d" "$1/textfile" "$1/etc-arenafix" "$1/etc"
        "$py" - "$work/arenafix-node.yaml.json" "localhost/$tag-node" "$1" "$tag-$3" "$2" "${4:-install}" >"$work/$3.json" <<'PY'
import json, sys
t, at, d, objs = open(sys.argv[1]).read(), 0, json.JSONDecoder(), []
while t[at:].strip():
    o, at = d.raw_decode(t, at + len(t[at:]) - len(t[at:].lstrip()))
    objs.append(o)
tmpl = [o for o in objs if o["kind"] == "DaemonSet"][0]["spec"]["template"]
image, node, name, root, action = sys.argv[2:7]
moved = {"/": root, "/opt/arenafix": node + "/opt/arenafix", "/etc/containers/oci/hooks.d": node + "/hooks.d",
         "/var/lib/prometheus/node-exporter": node + "/textfile", "/etc/arenafix": node + "/etc-arenafix",
         "/etc": node + "/etc"}
spec = tmpl["spec"]
for v in spec["volumes"]:
    if "hostPath" in v:
        v["hostPath"]["path"] = moved[v["hostPath"]["path"]]
for c in spec["initContainers"] + spec["containers"]:
    c["image"] = image
    for e in c.get("env", []):
        if e["name"] == "ARENAFIX_NODE_DIR":
            e["value"] = moved[e["value"]]
        if e["name"] == "ARENAFIX_ACTION":
            e["value"] = action
spec["restartPolicy"] = "Never"
for k in ("serviceAccountName", "nodeSelector", "tolerations"):
    spec.pop(k, None)
# podman removes an init container that succeeded unless told to keep
# it ("always"): its log is read.
print(json.dumps({"apiVersion": "v1", "kind": "Pod", "spec": spec,
                  "metadata": {"name": name, "labels": tmpl["metadata"]["labels"],
                               "annotations": {"io.podman.annotations.init.container.type": "always"}}}))
PY
    }
    node=$work/node
    ds_pod "$node" / ds-pod
    # The node runs containerd, its configuration with CRI settings of
    # its own (its /etc moved as the others).
    mkdir -p "$node/etc/containerd"
    cat >"$node/etc/containerd/config.toml" <<'EOF'
version = 2
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.example.com/pause:3.9"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
      SystemdCgroup = true
EOF
    cp -p "$node/etc/containerd/config.toml" "$work/containerd-config.orig"
    if ! pm kube play "$work/ds-pod.json" >"$work/play.log" 2>&1; then
        fail "podman kube play of the DaemonSet's pod: $(cat "$work/play.log")"; return
    fi
    for _ in $(seq 1 300); do [ -e "$node/hooks.d/arenafix.json" ] && break; sleep 0.2; done
    entry=$node/hooks.d/arenafix.json
    if [ -x "$node/opt/arenafix/bin/arenafix" ] && [ -f "$node/opt/arenafix/lib/libarenafix.so" ] && [ -f "$entry" ] \
        && [ "$(stat -c '%u %a' "$node/opt/arenafix/bin/arenafix" "$node/opt/arenafix/lib/libarenafix.so" "$entry" | tr '\n' ' ')" = "0 755 0 644 0 644 " ] \
        && "$py" -c '
import json, sys
e, d = json.load(open(sys.argv[1])), sys.argv[2]
p = json.load(open(sys.argv[3]))
sys.exit(not (e["hook"]["path"] == d + "/bin/arenafix" and e["hook"]["env"] == ["ARENAFIX_LIBRARY=" + d + "/lib/libarenafix.so"]
              and e["hook"]["args"] == ["arenafix", "oci-hook", "--always", "--log", d + "/oci-hook.log"]
              and e["when"] == p["when"] and e["stages"] == p["stages"]))' "$entry" "$node/opt/arenafix" "$(dirname "$0")/../../cli/hook/oci-hook.json.in"; then
        pass "the DaemonSet's init container (kube play, every capability dropped, read-only): the command, the library and a hooks.d entry, root's, with the package's annotation and stage, run with --always"
    else
        fail "the init container installed: $(ls -lR "$node" 2>&1; cat "$entry" 2>&1)"
    fi
    # containerd's entry: the drop-in with the node's CRI section and
    # the handler arenafix (the runtime where the node has it), imported
    # where the node's containerd looks; the restart said, not done.
    said=$(pm logs "$tag-ds-pod-install" 2>&1)
    if command -v containerd >/dev/null 2>&1; then
        got=$("$py" - "$node/etc/containerd/conf.d/zz-arenafix.toml" <<'PY' 2>&1
import sys, tomllib
c = tomllib.load(open(sys.argv[1], "rb"))["plugins"]["io.containerd.grpc.v1.cri"]
r = c["containerd"]["runtimes"]
print(c["sandbox_image"], r["runc"]["options"]["SystemdCgroup"], r["arenafix"]["options"]["BinaryName"],
      r["arenafix"]["options"]["SystemdCgroup"], r["arenafix"]["pod_annotations"])
PY
        )
        [ "$got" = "registry.example.com/pause:3.9 True $node/opt/arenafix/bin/arenafix-runtime True ['io.arenafix.enable']" ] \
            && grep -qx 'imports = \["/etc/containerd/conf.d/\*.toml"\]' "$node/etc/containerd/config.toml" \
            && [ -x "$node/opt/arenafix/bin/arenafix-runtime" ] && [ -x "$node/opt/arenafix/bin/arenafix-oci-hook" ] \
            && grep -qx "hook = $node/opt/arenafix/bin/arenafix-oci-hook" "$node/etc-arenafix/runtime.conf" \
            && echo "$said" | grep -q 'restart containerd on this node' \
            && pass "the DaemonSet's init container on a containerd node: arenafix-runtime installed, its runtime.conf, the drop-in keeping the node's CRI settings with the handler arenafix ($got), imported; says to restart containerd" \
            || fail "the init container on a containerd node: drop-in '$got'; $(cat "$node/etc/containerd/config.toml" "$node/etc-arenafix/runtime.conf" 2>&1); said: $said"
    else
        skip "no containerd on this machine: the DaemonSet's containerd entry is not tried"
    fi
    pm kube play --down "$work/ds-pod.json" >/dev/null 2>&1

    # A node whose directory for arenafix others may write (mode 0777):
    # the init container installs nothing, removes the entry left there
    # (the command it names may be another's by now) and fails, saying why.
    open=$work/node-open
    rm -rf "$open" && mkdir -p "$open/opt/arenafix" "$open/hooks.d" && chmod 0777 "$open/opt/arenafix" \
        && cp "$entry" "$open/hooks.d/arenafix.json"
    ds_pod "$open" / ds-open
    chmod 0777 "$open/opt/arenafix"
    # podman kube play fails with its init container.
    if ! pm kube play "$work/ds-open.json" >"$work/play-open.log" 2>&1; then
        said=$(pm logs "$tag-ds-open-install" 2>&1)
        [ "$(pm inspect -f '{{.State.Status}} {{.State.ExitCode}}' "$tag-ds-open-install" 2>/dev/null)" = "exited 1" ] \
            && ! [ -e "$open/hooks.d/arenafix.json" ] && [ -z "$(ls -A "$open/opt/arenafix")" ] \
            && echo "$said" | grep -F "not installed: /node/dir" | grep -F "may be written by another user than root" >/dev/null \
            && pass "a node whose directory for arenafix others may write: the init container installs nothing, removes the entry there and fails, saying why" \
            || fail "on a node with /opt/arenafix mode 0777 the init container said \"$said\" and left: $(ls -lR "$open/hooks.d" "$open/opt" 2>&1)"
    else
        fail "podman kube play of the DaemonSet's pod on a node with /opt/arenafix mode 0777 went on: $(ls -lR "$open/hooks.d" "$open/opt" 2>&1)"
    fi
    pm kube play --down "$work/ds-open.json" >/dev/null 2>&1
    # A node whose own libc cannot load arenafix (here musl's, the
    # node's / a tree with musl's loader alone): the init container
    # installs nothing, and removes an entry left from before (which
    # would make the runtime run a command the node cannot run).
    if [ -e /usr/lib/x86_64-linux-musl/libc.so ]; then
        bad=$work/node-musl
        # The mount point of the node's /etc.
        mkdir -p "$bad/root/lib" "$bad/root/etc" "$bad/hooks.d" && cp /usr/lib/x86_64-linux-musl/libc.so "$bad/root/lib/ld-musl-x86_64.so.1"
        cp "$entry" "$bad/hooks.d/arenafix.json"
        ds_pod "$bad" "$bad/root" ds-musl
        if pm kube play "$work/ds-musl.json" >"$work/play-musl.log" 2>&1; then
            for _ in $(seq 1 300); do
                [ "$(pm inspect -f '{{.State.Status}}' "$tag-ds-musl-scan" 2>/dev/null)" = running ] && break; sleep 0.2
            done
            [ "$(pm inspect -f '{{.State.Status}}' "$tag-ds-musl-scan" 2>/dev/null)" = running ] \
                && ! [ -e "$bad/hooks.d/arenafix.json" ] && [ -z "$(ls -A "$bad/opt/arenafix")" ] && [ -z "$(ls -A "$bad/etc")" ] \
                && pass "a node whose libc cannot load arenafix (musl): the init container installs nothing and removes the entry left there; a node without containerd gets no /etc/containerd" \
                || fail "on a musl node the init container left: $(ls -lR "$bad/hooks.d" "$bad/opt" 2>&1)"
        else
            fail "podman kube play of the DaemonSet's pod on a musl node: $(cat "$work/play-musl.log")"
        fi
        pm kube play --down "$work/ds-musl.json" >/dev/null 2>&1
    else
        skip "no musl (musl-tools): the init container is not tried on a node whose libc cannot load arenafix"
    fi

    # The installed entry, as CRI-O or podman reads hooks.d: 9 arenas
    # without the pod's annotation, the host glibc's count with it.
    rootfs "$work/affected" "$affected" "arenawait=$prog" && image affected || { fail "the affected image"; return; }
    host=$("$prog" 30 pinned </dev/null | sed -n 's/^arenas=//p')
    # workload ANNOTATION: pinned-workload.yaml's pod, its container the
    # affected image running arenawait, its annotation ANNOTATION's
    # value (the file's own when "keep"), run by kube play with the
    # installed hooks.d; the arenas it counted.
    workload() {
        "$py" - "$work/pinned-workload.yaml.json" "localhost/$tag-affected" "$tag-pinned" "$1" >"$work/pinned.json" <<'PY'
import json, sys
t, at, d, objs = open(sys.argv[1]).read(), 0, json.JSONDecoder(), []
while t[at:].strip():
    o, at = d.raw_decode(t, at + len(t[at:]) - len(t[at:].lstrip()))
    objs.append(o)
# CRI-O's variant (the annotation): kube play reads hooks.d as CRI-O does.
pod = [o for o in objs if o["metadata"]["name"] == "pinned-example-crio"][0]
image, name, ann = sys.argv[2:5]
pod["metadata"]["name"] = name
pod["metadata"]["annotations"].pop("afx-check", None)
if ann != "keep":
    pod["metadata"]["annotations"]["io.arenafix.enable"] = ann
c = pod["spec"]["containers"][0]
c["image"], c["command"] = image, ["/bin/arenawait", "30", "pinned"]
pod["spec"]["restartPolicy"] = "Never"
print(json.dumps(pod))
PY
        pm --hooks-dir "$node/hooks.d" kube play "$work/pinned.json" >"$work/play-pinned.log" 2>&1 \
            || { cat "$work/play-pinned.log"; return; }
        for _ in $(seq 1 300); do
            [ "$(pm inspect -f '{{.State.Status}}' "$tag-pinned-app" 2>/dev/null)" = exited ] && break; sleep 0.2
        done
        pm logs "$tag-pinned-app" 2>/dev/null | sed -n 's/^arenas=//p'
        pm kube play --down "$work/pinned.json" >/dev/null 2>&1
    }
    with=$(workload keep)
    without=$(workload false)
    [ "$without" = 9 ] && [ "$with" = "$host" ] && grep -q 'given the library' "$node/opt/arenafix/oci-hook.log" \
        && pass "pinned-workload.yaml in kube play with the installed hooks.d: $with arenas with its annotation (the host glibc's), $without with io.arenafix.enable=false; the hook's log on the node says why" \
        || fail "pinned-workload.yaml: $with arenas with the annotation, $without without (want $host, 9); log: $(cat "$node/opt/arenafix/oci-hook.log" 2>&1)"

    # ARENAFIX_ACTION=remove: the same pod takes away what it installed,
    # containerd's configuration back to its bytes.
    ds_pod "$node" / ds-remove remove
    if pm kube play "$work/ds-remove.json" >"$work/play-remove.log" 2>&1; then
        for _ in $(seq 1 300); do
            [ "$(pm inspect -f '{{.State.Status}}' "$tag-ds-remove-scan" 2>/dev/null)" = running ] && break; sleep 0.2
        done
        left=$(cd "$node" && find opt etc-arenafix hooks.d etc -type f | sort | tr '\n' ' ')
        cmp -s "$node/etc/containerd/config.toml" "$work/containerd-config.orig" && [ "$left" = "etc/containerd/config.toml " ] \
            && pass "ARENAFIX_ACTION=remove: the hook entry, runtime.conf, /opt/arenafix's files and logs and the drop-in removed, config.toml's bytes as before ($(pm logs "$tag-ds-remove-install" 2>&1 | tail -n 1))" \
            || fail "ARENAFIX_ACTION=remove left: $left; $(diff "$work/containerd-config.orig" "$node/etc/containerd/config.toml"); $(pm logs "$tag-ds-remove-install" 2>&1)"
    else
        fail "podman kube play of the DaemonSet's pod with ARENAFIX_ACTION=remove: $(cat "$work/play-remove.log")"
    fi
    pm kube play --down "$work/ds-remove.json" >/dev/null 2>&1

    # The scan container: the manifest's command, capabilities, read-only
    # root and volumes, with the host's PIDs (kube play of podman 4.3
    # gives a pod no hostPID), against a hit process of the host.
    # Its loader under a name of its own: the series is by command name,
    # and other processes of that name may run.
    rm -f "$work/hold" && mkfifo "$work/hold"
    cp "$affected/ld-linux-x86-64.so.2" "$work/kubehit-$$"
    "$work/kubehit-$$" --library-path "$affected" "$prog" 30 pinned <"$work/hold" >"$work/held.out" &
    held=$!
    exec 3>"$work/hold"
    for _ in $(seq 1 600); do grep -q '^arenas=' "$work/held.out" 2>/dev/null && break; sleep 0.1; done
    set -- $("$py" - "$work/arenafix-node.yaml.json" "$node" <<'PY'
import json, shlex, sys
t, at, d, objs = open(sys.argv[1]).read(), 0, json.JSONDecoder(), []
while t[at:].strip():
    o, at = d.raw_decode(t, at + len(t[at:]) - len(t[at:].lstrip()))
    objs.append(o)
spec = [o for o in objs if o["kind"] == "DaemonSet"][0]["spec"]["template"]["spec"]
c = [c for c in spec["containers"] if c["name"] == "scan"][0]
sc, args = c["securityContext"], []
args += ["--pid=host"] if spec.get("hostPID") else []
args += ["--user", str(sc["runAsUser"])]
args += ["--cap-drop=" + x.lower() for x in sc["capabilities"].get("drop", [])]
args += ["--cap-add=" + x.lower() for x in sc["capabilities"].get("add", [])]
args += ["--read-only"] if sc.get("readOnlyRootFilesystem") else []
args += ["--security-opt=no-new-privileges"] if sc.get("allowPrivilegeEscalation") is False else []
vols = {v["name"]: v for v in spec["volumes"]}
for m in c["volumeMounts"]:
    v = vols[m["name"]]
    if "emptyDir" in v:
        args += ["--tmpfs=" + m["mountPath"]]
    else:
        assert v["hostPath"]["path"] == "/var/lib/prometheus/node-exporter"
        args += ["-v", sys.argv[2] + "/textfile:" + m["mountPath"]]
# One word each: the command is sh -c SCRIPT, passed on in a file.
open(sys.argv[2] + "/scan.sh", "w").write(c["command"][2])
print(" ".join(args + ["-v", sys.argv[2] + "/scan.sh:/scan.sh:ro", "--entrypoint", c["command"][0]]))
PY
    )
    rm -f "$node/textfile/arenafix.prom"
    pm run -d $run_opts --name "$tag-scan" "$@" "localhost/$tag-node" /scan.sh >/dev/null 2>"$work/scan.err" \
        || fail "the scan container did not start: $(cat "$work/scan.err")"
    for _ in $(seq 1 600); do [ -s "$node/textfile/arenafix.prom" ] && break; sleep 0.2; done
    prom=$node/textfile/arenafix.prom
    host_version=$(ldd --version | sed -n '1s/.* //p')
    comm=$(cat "/proc/$held/comm")
    # Without privilege the scan cannot enter PID 1's namespaces to probe
    # the host's glibc as it: its state is unknown, its version known.
    grep -Fqx "arenafix_process_verdict{unit=\"\",comm=\"$comm\",verdict=\"hit\"} 1" "$prom" 2>/dev/null \
        && [ "$comm" = "kubehit-$$" ] \
        && grep -Eq "^arenafix_info\{.*glibc_version=\"$host_version\"" "$prom" \
        && grep -Fqx 'arenafix_glibc_affected{state="unknown"} 0' "$prom" \
        && pass "the DaemonSet's scan (its command, its two capabilities, host PIDs) wrote the textfile: the host's pinned process ($comm) hit, the host's glibc $host_version, not probed (unknown)" \
        || { fail "the scan's textfile: $(cat "$prom" 2>&1 | grep -v '^#'; pm logs "$tag-scan" 2>&1 | tail -5)"; }
    if command -v promtool >/dev/null 2>&1; then
        promtool check metrics <"$prom" >"$work/metrics.out" 2>&1 \
            && pass "promtool check metrics takes the scan's textfile" || fail "promtool check metrics: $(cat "$work/metrics.out")"
    fi
    pm rm -f -t 0 "$tag-scan" >/dev/null 2>&1
    exec 3>&-
    wait "$held" 2>/dev/null
    held=
}
cleanup() {
    pm ps -a --format '{{.Names}}' 2>/dev/null | grep "^$tag-" | while read -r c; do pm rm -f -t 0 "$c" >/dev/null 2>&1; done
    pm pod ps --format '{{.Name}}' 2>/dev/null | grep "^$tag-" | while read -r p; do pm pod rm -f "$p" >/dev/null 2>&1; done
    for i in node bookworm affected; do pm rmi -f "localhost/$tag-$i" >/dev/null 2>&1; done
    [ -n "${held:-}" ] && kill "$held" 2>/dev/null
    return 0
}
trap cleanup EXIT INT TERM
if $have_kubectl; then
    real
else
    skip "no kubectl: the image is not built (its pods come from kubectl's reading)"
fi
echo "check-kube: $(($(date +%s) - t0)) s"
summary
