#include "usertime.h"

#include <stdlib.h>

struct afx_user_spent {
    bool used;
    uid_t uid;
    double seconds;
};

/* A hash table: a user with subordinate IDs (newuidmap) may run each
 * process under an ID of its own, and a scan looks one up per process. */
static size_t slot(const struct afx_user_spent *list, size_t cap, uid_t uid)
{
    size_t i = ((size_t)uid * 2654435761u) & (cap - 1);
    while (list[i].used && list[i].uid != uid)
        i = (i + 1) & (cap - 1);
    return i;
}

/* Twice the room, every entry moved; false if memory ran out. */
static bool grow(struct afx_user_time *t)
{
    size_t cap = t->cap ? 2 * t->cap : 64;
    struct afx_user_spent *list = calloc(cap, sizeof *list);
    if (list == NULL)
        return false;
    for (size_t i = 0; i < t->cap; i++)
        if (t->list[i].used)
            list[slot(list, cap, t->list[i].uid)] = t->list[i];
    free(t->list);
    t->list = list;
    t->cap = cap;
    return true;
}

void afx_user_time_add(struct afx_user_time *t, uid_t uid, double seconds)
{
    /* At most half full: the probes stay short. */
    if (2 * (t->count + 1) > t->cap && !grow(t))
        return;
    struct afx_user_spent *u = &t->list[slot(t->list, t->cap, uid)];
    if (!u->used) {
        *u = (struct afx_user_spent){ .used = true, .uid = uid };
        t->count++;
    }
    u->seconds += seconds;
}

bool afx_user_time_spent(const struct afx_user_time *t, uid_t uid)
{
    if (t->cap == 0)
        return false;
    const struct afx_user_spent *u = &t->list[slot(t->list, t->cap, uid)];
    return u->used && u->seconds >= AFX_USER_SECONDS;
}

void afx_user_time_free(struct afx_user_time *t)
{
    free(t->list);
    *t = (struct afx_user_time){ 0 };
}
