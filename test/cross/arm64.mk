# make check-cross-arm64: the library, the command and the benchmark
# built with Debian's arm64 cross compiler into $(B)/arm64, make check's
# suites of the compiled code run under qemu-user on Debian's arm64 glibc,
# the proof on libc6-arm64-cross (bookworm's glibc before the fix), and
# the Debian packages cross-built and linted.  Needs the packages of
# test/packages.txt's "cross builds" group; what is missing is a skip
# with its reason.  See test/cross/README.md.

.PHONY: check-cross-arm64
check-cross-arm64:
	sh test/cross/arm64.sh $(B)/arm64
