/* This program's own file, for the children that run it again. */
#ifndef AFX_SELFEXE_H
#define AFX_SELFEXE_H

#include <stdbool.h>
#include <stddef.h>

/* Open the file this program runs from.  /proc/self/exe names it,
 * except when the program was started through an explicit loader
 * ("/lib64/ld-linux-x86-64.so.2 arenafix probe"): it names the loader
 * then, and the program is the file mapped where this function is.
 * -1 with errno set. */
int afx_self_open(void);

/* The path of that file as this process's maps show it, into out[size];
 * false if there is none (or it does not fit). */
bool afx_self_path(char *out, size_t size);

#endif
