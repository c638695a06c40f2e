/* A layer of compatibility on musl, as some define: glibc's
 * __libc_single_threaded, and not gnu_get_libc_version. */
char __libc_single_threaded = 0;
