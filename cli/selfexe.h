/* This program's own file, for the children that run it again. */
#ifndef AFX_SELFEXE_H
#define AFX_SELFEXE_H

/* Open the file this program runs from.  /proc/self/exe names it,
 * except when the program was started through an explicit loader
 * ("/lib64/ld-linux-x86-64.so.2 arenafix probe"): it names the loader
 * then, and the program is the file mapped where this function is.
 * -1 with errno set. */
int afx_self_open(void);

#endif
