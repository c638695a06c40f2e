#include "json.h"

void afx_json_quote(FILE *out, const char *s)
{
    if (s == NULL) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void key(struct afx_json *j, const char *k)
{
    fputs(j->first ? "" : ",", j->out);
    j->first = false;
    afx_json_quote(j->out, k);
    fputc(':', j->out);
}

void afx_json_begin(struct afx_json *j, FILE *out)
{
    j->out = out;
    j->first = true;
    fputc('{', out);
}

void afx_json_str(struct afx_json *j, const char *k, const char *value)
{
    key(j, k);
    afx_json_quote(j->out, value);
}

void afx_json_long(struct afx_json *j, const char *k, long value)
{
    key(j, k);
    fprintf(j->out, "%ld", value);
}

void afx_json_bool(struct afx_json *j, const char *k, bool value)
{
    key(j, k);
    fputs(value ? "true" : "false", j->out);
}

void afx_json_raw(struct afx_json *j, const char *k, const char *value)
{
    key(j, k);
    fputs(value, j->out);
}

void afx_json_end(struct afx_json *j)
{
    fputs("}\n", j->out);
}
