#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *afx_slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    /* /proc files report size 0: grow as we go. */
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        if (used + 1 >= cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (bigger == NULL) {
                free(buf);
                buf = NULL;
                errno = ENOMEM;
                break;
            }
            buf = bigger;
        }
        ssize_t n = read(fd, buf + used, cap - used - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int err = errno;
            free(buf);
            buf = NULL;
            errno = err;
            break;
        }
        if (n == 0) {
            buf[used] = '\0';
            if (len != NULL)
                *len = used;
            break;
        }
        used += (size_t)n;
    }
    int err = errno;
    close(fd);
    errno = err;
    return buf;
}

void afx_first_line(const char *path, char *out, size_t size)
{
    char *text = afx_slurp(path, NULL);
    out[0] = '\0';
    if (text == NULL)
        return;
    /* The kernel pads some files ("          (null)" in nohz_full when it
     * is off, as wide as a CPU mask): keep the words only. */
    const char *start = text + strspn(text, " \t");
    size_t n = strcspn(start, "\n");
    while (n > 0 && (start[n - 1] == ' ' || start[n - 1] == '\t'))
        n--;
    if (n >= size)
        n = size - 1;
    memcpy(out, start, n);
    out[n] = '\0';
    free(text);
}
