#!/bin/sh
# Print the path of Debian's kubectl (kubernetes-client), or nothing.
#
#   kubectl.sh DIR
#
# The installed one where that package owns it; else the package's .deb,
# from the mirror apt uses, unpacked in DIR (kept for later runs): a
# kubectl of another origin may own /usr/bin/kubectl, beside which the
# package does not install, and it is not the one to check with.
set -u
dir=$1
if [ "$(dpkg-query -W -f '${Status}' kubernetes-client 2>/dev/null)" = "install ok installed" ]; then
    dpkg-query -L kubernetes-client | grep -x '/usr/bin/kubectl'
    exit 0
fi
want=$(apt-cache policy kubernetes-client 2>/dev/null | sed -n 's/^ *Candidate: //p')
[ -n "$want" ] && [ "$want" != "(none)" ] || exit 0
if [ "$(cat "$dir/version" 2>/dev/null)" != "$want" ] || ! [ -x "$dir/root/usr/bin/kubectl" ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && apt-get download -q "kubernetes-client=$want" >download.log 2>&1) &&
        dpkg-deb -x "$dir"/kubernetes-client_*.deb "$dir/root" &&
        rm -f "$dir"/kubernetes-client_*.deb && echo "$want" >"$dir/version" ||
        { echo "check-kube: apt-get download kubernetes-client failed: $(tail -n 3 "$dir/download.log")" >&2; exit 0; }
fi
echo "$dir/root/usr/bin/kubectl"
