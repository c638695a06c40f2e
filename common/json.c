#include "json.h"

/* The length of the well-formed UTF-8 sequence at p (Unicode's table
 * 3-7: no overlong forms, no surrogates, nothing past U+10FFFF), its
 * code point in *cp; 0 if p does not start one.  For a malformed
 * start, *bad is the length of its maximal subpart, the bytes that one
 * U+FFFD replaces. */
static int utf8_sequence(const unsigned char *p, unsigned long *cp, int *bad)
{
    int len = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
              : p[0] >= 0xf0 && p[0] <= 0xf4                              ? 4
                                                                           : 0;
    unsigned char lo = 0x80, hi = 0xbf;    /* the second byte's range */
    if (p[0] == 0xe0)
        lo = 0xa0;
    else if (p[0] == 0xed)
        hi = 0x9f;
    else if (p[0] == 0xf0)
        lo = 0x90;
    else if (p[0] == 0xf4)
        hi = 0x8f;
    *bad = 1;
    if (len == 0)
        return 0;
    *cp = p[0] & (0x7f >> len);
    for (int i = 1; i < len; i++) {
        unsigned char min = i == 1 ? lo : 0x80, max = i == 1 ? hi : 0xbf;
        if (p[i] < min || p[i] > max) {
            *bad = i;
            return 0;
        }
        *cp = *cp << 6 | (p[i] & 0x3f);
    }
    return len;
}

void afx_json_quote(FILE *out, const char *s)
{
    if (s == NULL) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    const unsigned char *p = (const unsigned char *)s;
    while (*p != '\0') {
        unsigned long cp;
        int bad, len;
        if (*p == '"' || *p == '\\') {
            fprintf(out, "\\%c", *p);
            p++;
        } else if (*p >= 0x20 && *p < 0x7f) {
            fputc(*p, out);
            p++;
        } else if (*p < 0x80) {
            fprintf(out, "\\u%04x", *p);
            p++;
        } else if ((len = utf8_sequence(p, &cp, &bad)) > 0) {
            if (cp >= 0x10000)
                fprintf(out, "\\u%04lx\\u%04lx", 0xd800 + ((cp - 0x10000) >> 10),
                        0xdc00 + ((cp - 0x10000) & 0x3ff));
            else
                fprintf(out, "\\u%04lx", cp);
            p += len;
        } else {
            fputs("\\ufffd", out);
            p += bad;
        }
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
