/* "Did you mean inspect?": the word a misspelling was meant to be. */
#ifndef AFX_SUGGEST_H
#define AFX_SUGGEST_H

#include <stddef.h>

/* Edits (a letter added, dropped, changed, or two neighbours swapped;
 * ASCII case ignored) that turn a into b, counted up to limit: a
 * larger distance is reported as limit + 1. */
int afx_edit_distance(const char *a, const char *b, int limit);

/* The index in words[0..count) of the word that word misspells, or -1:
 * the nearest of those within two edits where the edits are fewer than
 * half that word's letters (one for "cdi", "path" and "help", two for
 * "probe" and longer), the first of equals.  A word equal to one of
 * them misspells none. */
int afx_misspelt(const char *word, const char *const *words, size_t count);

#endif
