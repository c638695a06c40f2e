#!/bin/sh
# make check-packages: test/deps.sh, run for real against stand-ins for
# dpkg, dpkg-query, apt-get and id that keep their state in a directory of
# this suite's own (the host's packages are never touched), and the tiers
# of test/packages.txt as make deps-demo and the others read them.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "packages: ok: $1"; }
fail() { failed=$((failed + 1)); echo "packages: FAILED: $1"; [ -n "${2:-}" ] && sed 's/^/    /' "$2"; }

# ---- the stand-ins -------------------------------------------------------
bin=$tmp/bin state=$tmp/state
mkdir -p "$bin" "$state"
cat >"$bin/dpkg-query" <<'EOS'
#!/bin/sh
# dpkg-query -W -f '${Status}' PKG
pkg=$4
grep -qx "$pkg" "$FAKE_STATE/installed" 2>/dev/null || exit 1
printf 'install ok installed'
EOS
cat >"$bin/dpkg" <<'EOS'
#!/bin/sh
case $1 in
--print-architecture) echo amd64 ;;
--print-foreign-architectures) cat "$FAKE_STATE/archs" 2>/dev/null ;;
--add-architecture) echo "$2" >>"$FAKE_STATE/archs" ;;
esac
EOS
cat >"$bin/apt-get" <<'EOS'
#!/bin/sh
echo "apt-get $*" >>"$FAKE_STATE/log"
simulate=no pkgs=
for a in "$@"; do
    case $a in
    update) exit 0 ;;
    install) ;;
    -s) simulate=yes ;;
    -*) ;;
    *) pkgs="$pkgs $a" ;;
    esac
done
for p in $pkgs; do
    if grep -qx "$p" "$FAKE_STATE/unavailable" 2>/dev/null; then
        if [ $simulate = yes ]; then
            echo "E: Unable to locate package $p"
        else
            echo "E: Unable to correct problems, you have held broken packages."
        fi
        exit 100
    fi
done
[ $simulate = yes ] && exit 0
for p in $pkgs; do echo "$p" >>"$FAKE_STATE/installed"; done
EOS
cat >"$bin/id" <<'EOS'
#!/bin/sh
echo "${FAKE_UID:-0}"
EOS
chmod +x "$bin"/*

# A copy of the script beside a list of the suite's own.
mkdir -p "$tmp/test"
cp "$top/test/deps.sh" "$tmp/test/deps.sh"
cat >"$tmp/test/packages.txt" <<'EOS'
# tiers as in test/packages.txt
@demo
d1
d2
dw?
@check
c1
@slow
s1
@all
a1
a2
EOS

# run TIER [unavailable packages...]: deps.sh's status; output in $tmp/out
run() {
    tier=$1
    shift
    rm -f "$state"/*
    : >"$state/installed"
    for p in "$@"; do echo "$p" >>"$state/unavailable"; done
    FAKE_STATE=$state PATH=$bin:$PATH sh "$tmp/test/deps.sh" $tier >"$tmp/out" 2>&1
}
installed() { sort "$state/installed" | tr '\n' ' '; }

run demo
st=$?
[ $st -eq 0 ] && [ "$(installed)" = "d1 d2 dw " ] &&
    ok "demo installs its tier alone" || fail "demo: status $st, installed: $(installed)" "$tmp/out"

run check
[ "$(installed)" = "c1 d1 d2 dw " ] && ok "check installs demo's and its own" ||
    fail "check: installed: $(installed)" "$tmp/out"

run all s1
st=$?
if [ $st -eq 1 ] && [ "$(installed)" = "a1 a2 c1 d1 d2 dw " ] &&
    grep -q "cannot install s1: E: Unable to locate package s1" "$tmp/out" &&
    grep -q "not installed: s1" "$tmp/out" && grep -q "what to do:" "$tmp/out"; then
    ok "a package that cannot be had is named with what to do, the rest installed, status 1"
else
    fail "all with s1 unavailable: status $st, installed: $(installed)" "$tmp/out"
fi

run demo dw
st=$?
[ $st -eq 0 ] && [ "$(installed)" = "d1 d2 " ] && grep -q "not installed: dw" "$tmp/out" &&
    grep -q "wanted, not needed" "$tmp/out" &&
    ok "a wanted package that cannot be had is named; the demo's tier still succeeds" ||
    fail "demo with dw unavailable: status $st, installed: $(installed)" "$tmp/out"

FAKE_UID=1000 run demo
st=$?
[ $st -eq 1 ] && grep -q "sudo apt-get update && sudo apt-get install -y d1 d2 dw" "$tmp/out" &&
    [ "$(installed)" = "" ] && ok "not root: the command to run, nothing installed, status 1" ||
    fail "not root: status $st, installed: $(installed)" "$tmp/out"

run nosuch
st=$?
[ $st -eq 2 ] && grep -q "no tier 'nosuch'" "$tmp/out" && ok "an unknown tier is refused" ||
    fail "unknown tier: status $st" "$tmp/out"

# ---- the project's own list ------------------------------------------------
cp "$top/test/packages.txt" "$tmp/test/packages.txt"
FAKE_UID=1000 run demo
demo=$(sed -n 's/.*sudo apt-get install -y//p' "$tmp/out")
[ "$demo" = " gcc make pkg-config libc6-dev libhwloc-dev libc6-amd64-cross" ] &&
    ok "the demo's tier: five packages and the cross glibc" ||
    fail "the demo's tier is:$demo" "$tmp/out"
prev=0
for t in demo check slow all; do
    FAKE_UID=1000 run $t
    n=$(sed -n 's/.*sudo apt-get install -y//p' "$tmp/out" | wc -w)
    if [ "$n" -le "$prev" ]; then
        fail "tier $t has $n packages, no more than the one before it ($prev)" "$tmp/out"
    fi
    prev=$n
done
[ "$failed" -eq 0 ] && ok "each tier adds to the one before it (all: $prev packages)"

echo "packages: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
