/* The trees the tests make and remove, in the harness's own process:
 * each test's fixture made them with mkdir, cp and rm through a shell,
 * three or four processes for what a few system calls do. */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void make_dirs(const char *path)
{
    char dir[PATH_MAX];
    ck_assert_msg(path[0] != '\0', "no directory named");
    ck_assert_msg(snprintf(dir, sizeof dir, "%s", path) < (int)sizeof dir, "too long: %s", path);
    /* As mkdir -p: each missing parent in turn, the umask applied. */
    for (char *p = dir + strspn(dir, "/"); *p != '\0'; p++)
        if (*p == '/') {
            *p = '\0';
            ck_assert_msg(mkdir(dir, 0777) == 0 || errno == EEXIST, "mkdir %s: %s", dir, strerror(errno));
            *p = '/';
        }
    ck_assert_msg(mkdir(dir, 0777) == 0 || errno == EEXIST, "mkdir %s: %s", dir, strerror(errno));
    struct stat st;
    ck_assert_msg(stat(dir, &st) == 0 && S_ISDIR(st.st_mode), "%s: not a directory", dir);
}

void copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    ck_assert_msg(in >= 0, "%s: %s", from, strerror(errno));
    struct stat st;
    ck_assert(fstat(in, &st) == 0);
    /* As cp: the source's permission bits but set-ID, the umask applied. */
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 01777);
    ck_assert_msg(out >= 0, "%s: %s", to, strerror(errno));
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        ck_assert_msg(write(out, buf, (size_t)n) == n, "%s: %s", to, strerror(errno));
    ck_assert_msg(n == 0, "%s: %s", from, strerror(errno));
    close(in);
    ck_assert_msg(close(out) == 0, "%s: %s", to, strerror(errno));
}

static bool remove_failed;

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    bool dir = type == FTW_DP || type == FTW_DNR;
    if ((dir ? rmdir(path) : unlink(path)) != 0 && errno != ENOENT) {
        fprintf(stderr, "remove %s: %s\n", path, strerror(errno));
        remove_failed = true;
    }
    return 0;  /* on with the rest, as rm -rf goes on */
}

bool remove_tree(const char *dir)
{
    /* As rm -rf: links removed, not followed; children before their
     * directory; a tree already gone is no failure. */
    remove_failed = false;
    if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT) {
        fprintf(stderr, "remove %s: %s\n", dir, strerror(errno));
        return false;
    }
    return !remove_failed;
}
