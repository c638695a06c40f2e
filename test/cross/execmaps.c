/* Says which libarenafix.so this process mapped, then execs the rest of
 * its arguments: built 32- and 64-bit, chained, it shows that
 * LD_PRELOAD='.../$LIB/arenafix/libarenafix.so' gives each process the
 * build of its own ELF class.
 *
 *   execmaps [PROGRAM ARGS...]
 *
 * Prints "execmaps: N-bit: PATH" (or "N-bit: none"); exits 1 if none
 * was mapped, else the status of the exec'd program. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char line[4096], found[4096] = "";
    FILE *maps = fopen("/proc/self/maps", "r");
    while (maps != NULL && fgets(line, sizeof line, maps) != NULL) {
        char *path = strchr(line, '/');
        if (path != NULL && strstr(path, "/libarenafix.so") != NULL) {
            path[strcspn(path, "\n")] = '\0';
            snprintf(found, sizeof found, "%s", path);
            break;
        }
    }
    if (maps != NULL)
        fclose(maps);
    printf("execmaps: %zu-bit: %s\n", sizeof(void *) * 8, found[0] ? found : "none");
    fflush(stdout);
    if (found[0] == '\0')
        return 1;
    if (argc > 1) {
        execv(argv[1], argv + 1);
        perror(argv[1]);
        return 127;
    }
    return 0;
}
