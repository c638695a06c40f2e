/* arenafix's own settings, from its ARENAFIX_* variables.  Pure: the
 * caller hands in the variables' values. */
#ifndef AFX_CONFIG_H
#define AFX_CONFIG_H

#include <stdbool.h>

enum afx_mode {
    AFX_MODE_MALLOPT,   /* set M_ARENA_MAX from the online CPU count */
    AFX_MODE_TOUCH,     /* malloc in each thread before its mask narrows */
    AFX_MODE_BOTH,
    AFX_MODE_OFF,
};

/* The variables, in the order of afx_config_names. */
enum { AFX_VAR_MODE, AFX_VAR_ARENA_MAX, AFX_VAR_VERBOSE, AFX_VAR_EAGER, AFX_VAR_LOG,
       AFX_VAR_COUNT };
extern const char *const afx_config_names[AFX_VAR_COUNT];

/* Largest explicit ARENAFIX_ARENA_MAX accepted (mallopt takes an int). */
#define AFX_ARENA_MAX_LIMIT 1000000L

struct afx_config {
    enum afx_mode mode;
    long arena_max;      /* 0: derive from the CPU count */
    bool verbose;
    bool eager;
    const char *log;     /* verbose output to this file (appended), NULL: stderr */
};

/* Fill *cfg from values[AFX_VAR_*] (NULL: unset).  A malformed value
 * leaves that setting at its default.  Returns the index of the first
 * malformed variable, or -1 if all are fine. */
int afx_config_parse(struct afx_config *cfg, const char *const values[AFX_VAR_COUNT]);

const char *afx_mode_name(enum afx_mode mode);

#endif
