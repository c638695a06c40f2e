/* A program of a libc the library does not serve (glibc 2.31), linked
 * without libpthread: it sets a malloc parameter first, then opens a
 * plugin (argv[1]) that brings libpthread with it and starts a thread,
 * as a program with threaded plugins does.  Prints the plugin's
 * pthread_create result. */
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    if (mallopt(M_TRIM_THRESHOLD, 1 << 20) != 1)
        return 3;
    void *h = dlopen(argv[1], RTLD_NOW);
    if (h == NULL) {
        printf("dlopen: %s\n", dlerror());
        return 4;
    }
    int (*start)(void) = (int (*)(void))dlsym(h, "otherlibc_plugin_start");
    if (start == NULL)
        return 5;
    printf("otherlibc plugin: pthread_create returned %d\n", start());
    return 0;
}
