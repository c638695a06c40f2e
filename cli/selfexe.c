#include "selfexe.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mappedfile.h"
#include "procmaps.h"
#include "readfile.h"

static void feed(void *m, const char *piece, size_t len)
{
    afx_maps_feed(m, piece, len);
}

int afx_self_open(void)
{
    static struct afx_maps maps;
    afx_maps_begin(&maps);
    maps.find = (unsigned long)&afx_self_open;
    if (!afx_read_pieces("/proc/self/maps", feed, &maps))
        return -1;
    afx_maps_end(&maps);
    const struct afx_mapping *code = &maps.found;
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
