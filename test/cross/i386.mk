# make check-cross-i386: the library built for 32-bit x86 with Debian's
# i686 cross compiler into $(B)/i386 and make check's suites of the
# compiled code run natively (the kernel runs i386 programs) on Debian's
# i386 glibc, with the integration suite's proof on libc6-i386-cross
# (bookworm's glibc before the fix); then the 32- and 64-bit builds
# installed side by side and one LD_PRELOAD with $LIB giving each process
# its own.  Needs the packages of test/packages.txt's "cross builds"
# group; what is missing is a skip with its reason.  See
# test/cross/README.md.

.PHONY: check-cross-i386
check-cross-i386:
	sh test/cross/i386.sh $(B)/i386
