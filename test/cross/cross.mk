# make check-cross: the project built and tested for the other
# architectures an affected glibc runs on, each with its own rules:
# arm64 under qemu-user (test/cross/arm64.mk) and 32-bit x86
# (test/cross/i386.mk).  Each prints its own closing line.

.PHONY: check-cross
check-cross: check-cross-arm64 check-cross-i386

-include test/cross/arm64.mk
-include test/cross/i386.mk
