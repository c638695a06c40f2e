#include "procenv.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "usersettings.h"

bool afx_auxv_secure(const void *auxv, size_t len)
{
    const unsigned char *p = auxv;
    for (size_t i = 0; i + 2 * sizeof(unsigned long) <= len; i += 2 * sizeof(unsigned long)) {
        unsigned long type, value;
        memcpy(&type, p + i, sizeof type);
        memcpy(&value, p + i + sizeof type, sizeof value);
        if (type == AT_NULL)
            break;
        if (type == AT_SECURE)
            return value != 0;
    }
    return false;
}

/* The block as a NULL-terminated array over a NUL-terminated copy. */
static char **split(const char *env, size_t len, char **copy)
{
    size_t n = 1;
    for (size_t i = 0; i < len; i++)
        n += env[i] == '\0';
    *copy = malloc(len + 1);
    char **list = calloc(n + 1, sizeof *list);
    if (*copy == NULL || list == NULL) {
        free(*copy);
        free(list);
        return NULL;
    }
    memcpy(*copy, env, len);
    (*copy)[len] = '\0';
    size_t k = 0;
    for (char *p = *copy; p < *copy + len; p += strlen(p) + 1)
        list[k++] = p;
    return list;
}

bool afx_environ_facts(const char *env, size_t len, bool secure, struct afx_env_facts *f)
{
    char *copy;
    char **envp = split(env, len, &copy);
    if (envp == NULL)
        return false;
    struct afx_user_settings user;
    afx_user_scan(envp, secure, &user);
    f->secure = secure;
    f->user_limit = user.arena_max_from != AFX_UNSET;

    /* The first of each, as libarenafix takes them; none when secure. */
    const char *values[AFX_VAR_COUNT] = { 0 };
    for (char **e = envp; !secure && *e != NULL; e++)
        /* Most of a login's forty variables pass at their first bytes:
         * a scan reads every process's environment. */
        for (int v = 0; v < AFX_VAR_COUNT && strncmp(*e, "ARENAFIX_", 9) == 0; v++) {
            size_t n = strlen(afx_config_names[v]);
            if (strncmp(*e, afx_config_names[v], n) == 0 && (*e)[n] == '=' && values[v] == NULL)
                values[v] = *e + n + 1;
        }
    f->preload_set = f->preload_long = false;
    f->preload[0] = '\0';
    for (char **e = envp; *e != NULL && !f->preload_set; e++)
        if ((*e)[0] == 'L' && strncmp(*e, "LD_PRELOAD=", 11) == 0) {
            f->preload_set = true;
            f->preload_long = strlen(*e + 11) >= sizeof f->preload;
            if (!f->preload_long)
                strcpy(f->preload, *e + 11);
        }
    afx_config_parse(&f->arenafix, values);
    f->arenafix.log = NULL;     /* it pointed into the copy */
    free(envp);
    free(copy);
    return true;
}
