/* Pinning a thread the ways real software does, and the cpulist text
 * the parent uses to tell a child where each thread goes. */
#ifndef AFB_PIN_H
#define AFB_PIN_H

#include <pthread.h>
#include <sched.h>

#include "model.h"

/* Parse a cpulist ("0-3,8") into SET.  Pure; -1 if malformed or empty. */
int afb_cpulist_parse(const char *text, cpu_set_t *set);

/* Parse "SLOT/SLOT/..." (each a cpulist) into at most MAX sets.
 * Returns the number of slots, or -1. */
int afb_slots_parse(const char *text, cpu_set_t *sets, int max);

/* Get ready to pin by PATH: the hwloc path needs the topology loaded
 * (once, by the main thread, before any worker starts).  Returns 0 or an
 * errno value. */
int afb_pin_prepare(enum afb_pinpath path);

/* Pin the calling thread to SET by PATH (self, pthread or hwloc; the
 * other paths act at thread creation).  Returns 0 or an errno value. */
int afb_pin_self(enum afb_pinpath path, const cpu_set_t *set);

#endif
