#include "selfexe.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "proc/mappedfile.h"
#include "proc/procmaps.h"
#include "readfile.h"

static void feed(void *m, const char *piece, size_t len)
{
    afx_maps_feed(m, piece, len);
}

/* The mapping that holds this code. */
static const struct afx_mapping *self_mapping(void)
{
    static struct afx_maps maps;
    afx_maps_begin(&maps);
    maps.find = (unsigned long)&afx_self_open;
    if (!afx_read_pieces("/proc/self/maps", (size_t)-1, NULL, feed, &maps))
        return NULL;
    afx_maps_end(&maps);
    return &maps.found;
}

bool afx_self_path(char *out, size_t size)
{
    const struct afx_mapping *code = self_mapping();
    if (code == NULL || code->path[0] != '/' || strlen(code->path) >= size)
        return false;
    memcpy(out, code->path, strlen(code->path) + 1);
    return true;
}

int afx_self_open(void)
{
    const struct afx_mapping *code = self_mapping();
    if (code == NULL)
        return -1;
    if (code->path[0] == '\0') {
        errno = ENOENT;
        return -1;
    }
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_ino == code->inode && major(st.st_dev) == code->dev_major
        && minor(st.st_dev) == code->dev_minor)
        return fd;
    if (fd >= 0)
        close(fd);
    return afx_mapped_open(getpid(), code);
}
