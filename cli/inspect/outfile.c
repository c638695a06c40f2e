#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

FILE *afx_outfile_open(struct afx_outfile *o, const char *path)
{
    o->f = NULL;
    if (snprintf(o->path, sizeof o->path, "%s", path) >= (int)sizeof o->path
        || snprintf(o->tmp, sizeof o->tmp, "%s.XXXXXX", path) >= (int)sizeof o->tmp) {
        afx_error("--output: the path is longer than a path can be; name a shorter one");
        return NULL;
    }
    /* mkstemp opens with O_CREAT | O_EXCL: a link planted under the
     * name it picks is not followed, it picks another. */
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        afx_error("--output %s: cannot create a file beside it: %s; check that its directory exists and is "
                  "writable", path, strerror(errno));
        return NULL;
    }
    /* The collector runs as another user: it must be able to read it. */
    if (fchmod(fd, 0644) != 0 || (o->f = fdopen(fd, "w")) == NULL) {
        afx_error("--output %s: cannot set up %s: %s", path, o->tmp, strerror(errno));
        close(fd);
        unlink(o->tmp);
        return NULL;
    }
    return o->f;
}

bool afx_outfile_commit(struct afx_outfile *o)
{
    const char *step = "write";
    bool ok = fflush(o->f) == 0 && !ferror(o->f);
    if (ok) {
        step = "sync";
        ok = fsync(fileno(o->f)) == 0;
    }
    int err = errno;
    if (fclose(o->f) != 0 && ok) {
        step = "close";
        err = errno;
        ok = false;
    }
    o->f = NULL;
    if (ok && rename(o->tmp, o->path) != 0) {
        step = "rename";
        err = errno;
        ok = false;
    }
    if (!ok) {
        afx_error("--output %s: cannot %s %s: %s; %s is left as it was", o->path, step, o->tmp, strerror(err),
                  o->path);
        unlink(o->tmp);
    }
    return ok;
}
