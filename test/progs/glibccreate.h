/* glibc's own pthread_create, past arenafix's unversioned interposer:
 * dlvsym asks for a definition of a version, which an unversioned one
 * is not, as libraries that look pthread_create up by version do.  The
 * threads it starts are not seen starting.  A header, so that each test
 * program stays one file. */
#ifndef AFX_GLIBCCREATE_H
#define AFX_GLIBCCREATE_H

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

typedef int afx_create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* The newest version this architecture's glibc has; NULL if none. */
static inline afx_create_fn *afx_glibc_pthread_create(void)
{
    static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.1",
                                            "GLIBC_2.17", "GLIBC_2.0" };
    afx_create_fn *create = NULL;
    for (size_t i = 0; create == NULL && i < sizeof versions / sizeof versions[0]; i++)
        create = (afx_create_fn *)dlvsym(RTLD_DEFAULT, "pthread_create", versions[i]);
    return create;
}

#endif
