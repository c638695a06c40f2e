#include "inspectread.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memreader.h"
#include "proc/heaps.h"
#include "proc/procstatus.h"
#include "readfile.h"
#include "sysparse.h"

/* The kernel writes a few KiB of status; the environment block is at
 * most 6 MiB (execve's limit), the auxiliary vector a few hundred
 * bytes. */
#define STATUS_MAX (1L << 20)
#define ENVIRON_MAX (8L << 20)
#define AUXV_MAX (64L << 10)
/* A line per hierarchy, each path at most PATH_MAX: a dozen lines. */
#define CGROUP_MAX (64L << 10)

static void feed_maps(void *m, const char *piece, size_t len)
{
    afx_maps_feed(m, piece, len);
}

/* True if DIR/maps has something in it (one byte read, no more, by
 * the helper: memreader.h). */
static bool has_maps(const char *dir, const struct afx_deadline *by)
{
    char path[128];
    afx_path_join(path, sizeof path, dir, "/maps");
    char *text = afx_mem_slurp(path, 0, by, NULL);
    bool more = text == NULL && errno == EFBIG;
    free(text);
    return more;
}

bool afx_live_thread_dir(long pid, const struct afx_deadline *by, char *dir, size_t size)
{
    char tasks[64];
    afx_proc_path(tasks, sizeof tasks, pid, "/task");
    DIR *d = opendir(tasks);
    if (d == NULL)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && !afx_deadline_passed(by) && (e = readdir(d)) != NULL) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || tid <= 0 || tid == pid)
            continue;
        char candidate[64];    /* "/proc/" and two longs fit */
        snprintf(candidate, sizeof candidate, "/proc/%ld/task/%ld", pid, tid);
        if (has_maps(candidate, by) && strlen(candidate) < size) {
            snprintf(dir, size, "%s", candidate);
            found = true;
        }
    }
    closedir(d);
    return found;
}

bool afx_read_maps(const char *dir, const struct afx_deadline *by, struct afx_maps *m)
{
    char path[128];
    afx_path_join(path, sizeof path, dir, "/maps");
    afx_maps_begin(m);
    /* By the helper: the kernel may take the map's lock (memreader.h). */
    if (!afx_mem_read_pieces(path, AFX_MAPS_READ_MAX, by, feed_maps, m))
        return false;
    afx_maps_end(m);
    return true;
}

bool afx_read_threads(long pid, long online, const struct afx_deadline *by, struct afx_threads *t)
{
    char dir[64];
    afx_proc_path(dir, sizeof dir, pid, "/task");
    *t = (struct afx_threads){ .min_cpus = -1 };
    DIR *d = opendir(dir);
    if (d == NULL)
        return true;
    struct dirent *e;
    bool in_time = true;
    while (in_time && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[400], list[256];
        snprintf(path, sizeof path, "%s/%s/status", dir, e->d_name);
        char *text = afx_slurp_max(path, STATUS_MAX, by, NULL);
        in_time = text != NULL || errno != ETIME;
        if (text == NULL)
            continue;   /* the thread has just exited, or time is up */
        if (afx_status_field(text, "Cpus_allowed_list", list, sizeof list)) {
            long n = afx_cpulist_count(list);
            t->count++;
            if (n > 0 && n < online)
                t->narrowed++;
            if (n > 0 && (t->min_cpus < 0 || n < t->min_cpus)) {
                t->min_cpus = n;
                snprintf(t->narrowest, sizeof t->narrowest, "%s", list);
            }
        }
        free(text);
    }
    closedir(d);
    return in_time;
}

long afx_count_target_arenas(const char *dir, const struct afx_maps *m, const struct afx_deadline *by, int *err)
{
    char path[128];
    *err = 0;
    if (m->kept < m->heaps)
        return -1;
    afx_path_join(path, sizeof path, dir, "/mem");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *err = errno;
        return -1;
    }
    if (m->kept == 0) {
        close(fd);
        return 1;       /* the main arena alone */
    }
    /* Read by a helper this process can leave asleep (memreader.h). */
    unsigned long *words = malloc((size_t)m->kept * AFX_MEM_WORDS * sizeof *words);
    long got = words != NULL ? afx_mem_read_words(fd, m->heap_at, (size_t)m->kept, words, by) : -1;
    if (got < 0)
        *err = errno == ETIME ? ETIME : 0;
    close(fd);
    long first = 0;
    for (long i = 0; got == m->kept && i < m->kept; i++) {
        const unsigned long *w = &words[i * AFX_MEM_WORDS];
        struct afx_heap_header h = { w[0], w[1], w[2], w[3] };
        first += afx_heap_is_first(&h, m->heap_at[i], m->heap_rw[i]);
    }
    free(words);
    return got == m->kept ? first + 1 : -1;   /* and the main arena */
}

bool afx_read_env(const char *dir, const struct afx_deadline *by, struct afx_env_facts *env)
{
    char path[128];
    size_t len;
    afx_path_join(path, sizeof path, dir, "/auxv");
    char *auxv = afx_slurp_max(path, AUXV_MAX, by, &len);
    bool secure = auxv != NULL && afx_auxv_secure(auxv, len);
    free(auxv);
    afx_path_join(path, sizeof path, dir, "/environ");
    /* By the helper: the kernel takes the map's lock (memreader.h). */
    char *text = afx_mem_slurp(path, ENVIRON_MAX, by, &len);
    bool in_time = text != NULL || errno != ETIME;
    if (text == NULL || !afx_environ_facts(text, len, secure, env))
        afx_environ_facts("", 0, secure, env);
    free(text);
    return in_time;
}

void afx_read_cgroup(long pid, const struct afx_deadline *by, struct afx_unit *u,
                     struct afx_container *c)
{
    char path[64];
    size_t len = 0;
    afx_proc_path(path, sizeof path, pid, "/cgroup");
    char *text = afx_slurp_max(path, CGROUP_MAX, by, &len);
    if (text == NULL || !afx_cgroup_unit(text, len, u))
        *u = (struct afx_unit){ 0 };
    afx_container_of(pid, text, len, c);
    free(text);
}
