# make check-kube: deploy/kubernetes/'s manifests validated by what
# installs here (no control plane does): Debian's kubectl reads them
# offline, test/kube/schema.py checks every object against Kubernetes'
# OpenAPI definitions (Debian's python3-kubernetes), promtool the scrape
# job with the alert rules; then, as root, the node image built from
# the Containerfile (podman build, debootstrap's bookworm, this tree's
# .debs), the DaemonSet's pod and the pinned workload run by podman kube
# play, the scan container with the host's PIDs
# (deploy/kubernetes/README.md).  What is missing is skipped with the
# reason.  About 2 minutes, debootstrap and the packages included.

KUBE := $(B)/kube

.PHONY: check-kube kube-debs
# The project's .debs for the image, as check-host builds its own
# (without the upstream tests: check-deb runs them).
kube-debs:
	@mkdir -p $(KUBE)
	@DEB_BUILD_OPTIONS=nocheck $(MAKE) --no-print-directory deb DEB_OUT=$(abspath $(KUBE)/deb) >$(KUBE)/deb.log 2>&1 || \
	    { tail -n 30 $(KUBE)/deb.log; exit 1; }

check-kube: $(B)/test/arenawait
	@mkdir -p $(KUBE)
	@debs=; if [ "$$(id -u)" -eq 0 ] && command -v dpkg-buildpackage >/dev/null; then \
	    $(MAKE) --no-print-directory kube-debs && debs=$(abspath $(KUBE)/deb); fi; \
	sh test/kube/check.sh $(abspath $(KUBE)/run) "$$(sh test/kube/kubectl.sh $(abspath $(KUBE)/kubectl))" \
	    $(abspath $(B)/test/arenawait) \
	    $(abspath $(firstword $(subst :, ,$(ARENAFIX_AFFECTED_GLIBC)))) "$$debs"
