/* The environment each scenario's child gets: the caller's, with the
 * scenario's LD_PRELOAD, ARENAFIX_MODE and GLIBC_TUNABLES.  Pure. */
#ifndef AFB_ENV_H
#define AFB_ENV_H

#include "model.h"

/* A new NULL-terminated environment from ENVP for scenario S.  PRELOAD is
 * the libarenafix.so of the shim scenarios; ARENA_MAX the tunable's
 * value.  Any libarenafix.so already in LD_PRELOAD (a host-wide preload)
 * is dropped, or the baselines would carry the shim too; other preloads
 * stay, in order.  Free with afb_env_free. */
char **afb_env_build(char *const *envp, enum afb_scenario s, const char *preload,
                     int arena_max);
void afb_env_free(char **env);

/* The value of NAME in ENV, or NULL. */
const char *afb_env_get(char *const *env, const char *name);

#endif
