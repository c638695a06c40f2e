/* A preload for the real-program tests: when the process exits, count
 * its glibc malloc arenas and append "arenas=N" to the file named by
 * AFX_ARENAS_FILE.  It defines no global symbol, so it changes no
 * binding, and it leaves the program's stdout and stderr alone. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenas.h"     /* count_arenas(), shared with test/progs */

static char report_path[4096];

/* Copied now: the program may change its environment before exit.
 * Nothing else happens here (no allocation, no thread, no affinity
 * call), so the libraries under test see the process as without us. */
__attribute__((constructor)) static void remember_path(void)
{
    const char *path = getenv("AFX_ARENAS_FILE");
    if (path != NULL && strlen(path) < sizeof report_path)
        strcpy(report_path, path);
}

/* Appended, not overwritten: a child that inherits the preload adds a
 * line of its own, which the runner notices instead of reading a count
 * from the wrong process. */
__attribute__((destructor)) static void report(void)
{
    if (report_path[0] == '\0')
        return;
    char line[32];
    int len = snprintf(line, sizeof line, "arenas=%d\n", count_arenas());
    int fd = open(report_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    /* A short write leaves a line the runner rejects. */
    ssize_t written = write(fd, line, (size_t)len);
    (void)written;
    close(fd);
}
