#include "cdispec.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* CDI's own rule; a first letter, not a digit, for the readers of
 * specs older than 0.5.0. */
const char *afx_cdi_name_problem(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 64)
        return "a device's name has 1 to 64 characters";
    if (!alnum(name[0]) || (name[0] >= '0' && name[0] <= '9') || !alnum(name[n - 1]))
        return "a device's name starts with a letter and ends with a letter or digit";
    for (size_t i = 1; i < n; i++)
        if (!alnum(name[i]) && strchr("_-.:", name[i]) == NULL)
            return "a device's name holds only letters, digits, '_', '-', '.' and ':'";
    return NULL;
}

const char *afx_cdi_path_problem(const char *path)
{
    if (path[0] != '/')
        return "is not an absolute path";
    for (const char *p = path; *p != '\0'; p++)
        if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\')
            return "has a character outside printable ASCII, a '\"' or a '\\'";
    return NULL;
}

int afx_cdi_spec(char *out, size_t size, const char *command, const char *name, const char *log)
{
    if (afx_cdi_name_problem(name) != NULL || afx_cdi_path_problem(command) != NULL
        || (log != NULL && afx_cdi_path_problem(log) != NULL))
        return -1;
    int n = snprintf(out, size,
                     "{\n"
                     "    \"cdiVersion\": \"" AFX_CDI_VERSION "\",\n"
                     "    \"kind\": \"" AFX_CDI_KIND "\",\n"
                     "    \"devices\": [\n"
                     "        {\n"
                     "            \"name\": \"%s\",\n"
                     "            \"containerEdits\": {\n"
                     "                \"hooks\": [\n"
                     "                    {\n"
                     "                        \"hookName\": \"createRuntime\",\n"
                     "                        \"path\": \"%s\",\n"
                     "                        \"args\": [\"arenafix\", \"oci-hook\", \"--cdi\"%s%s%s]\n"
                     "                    }\n"
                     "                ]\n"
                     "            }\n"
                     "        }\n"
                     "    ]\n"
                     "}\n",
                     name, command, log ? ", \"--log\", \"" : "", log ? log : "", log ? "\"" : "");
    return n >= 0 && (size_t)n < size ? n : -1;
}
