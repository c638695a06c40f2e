#include "ocijson.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define DEPTH_MAX 64

struct cursor {
    const char *p, *end;
};

static void blanks(struct cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* Past one string, its opening quote at c->p. */
static bool skip_string(struct cursor *c)
{
    if (c->p >= c->end || *c->p != '"')
        return false;
    for (c->p++; c->p < c->end; c->p++) {
        unsigned char ch = (unsigned char)*c->p;
        if (ch == '"') {
            c->p++;
            return true;
        }
        if (ch < 0x20)
            return false;
        if (ch == '\\' && ++c->p >= c->end)
            return false;
    }
    return false;
}

static bool skip_value(struct cursor *c, int depth);

/* Past an object or array, its bracket at c->p. */
static bool skip_container(struct cursor *c, int depth)
{
    char close = *c->p == '{' ? '}' : ']';
    bool object = close == '}';
    if (depth >= DEPTH_MAX)
        return false;
    c->p++;
    blanks(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        return true;
    }
    for (;;) {
        if (object) {
            blanks(c);
            if (!skip_string(c))
                return false;
            blanks(c);
            if (c->p >= c->end || *c->p++ != ':')
                return false;
        }
        if (!skip_value(c, depth + 1))
            return false;
        blanks(c);
        if (c->p >= c->end)
            return false;
        if (*c->p == close) {
            c->p++;
            return true;
        }
        if (*c->p++ != ',')
            return false;
    }
}

static bool skip_value(struct cursor *c, int depth)
{
    blanks(c);
    if (c->p >= c->end)
        return false;
    if (*c->p == '"')
        return skip_string(c);
    if (*c->p == '{' || *c->p == '[')
        return skip_container(c, depth);
    /* A number or a literal: its characters, checked by whoever reads it. */
    const char *start = c->p;
    while (c->p < c->end && strchr("+-.0123456789eEtruefalsn", *c->p) != NULL && *c->p != '\0')
        c->p++;
    return c->p > start;
}

/* The member name of the object at c->p (a string) equals key. */
static bool name_is(const char *start, const char *end, const char *key)
{
    char name[256];
    return afx_json_string(start, (size_t)(end - start), name, sizeof name) && strcmp(name, key) == 0;
}

/* In the object at c->p, the value of the first member named key. */
static bool find_member(struct cursor *c, const char *key, int depth)
{
    blanks(c);
    if (c->p >= c->end || *c->p != '{' || depth >= DEPTH_MAX)
        return false;
    c->p++;
    blanks(c);
    if (c->p < c->end && *c->p == '}')
        return false;
    for (;;) {
        blanks(c);
        const char *name = c->p;
        if (!skip_string(c))
            return false;
        const char *name_end = c->p;
        blanks(c);
        if (c->p >= c->end || *c->p++ != ':')
            return false;
        blanks(c);
        if (name_is(name, name_end, key))
            return true;
        if (!skip_value(c, depth + 1))
            return false;
        blanks(c);
        if (c->p >= c->end || *c->p != ',')
            return false;
        c->p++;
    }
}

bool afx_json_member(const char *json, size_t len, const char *const *keys, size_t nkeys,
                     const char **val, size_t *vlen)
{
    struct cursor whole = { json, json + len };
    /* The whole text must be one value: a member found in a truncated
     * or doubled document would be a guess. */
    if (!skip_value(&whole, 0))
        return false;
    blanks(&whole);
    if (whole.p != whole.end)
        return false;
    struct cursor c = { json, json + len };
    for (size_t i = 0; i < nkeys; i++)
        if (!find_member(&c, keys[i], (int)i))
            return false;
    const char *start = c.p;
    if (!skip_value(&c, (int)nkeys))
        return false;
    *val = start;
    *vlen = (size_t)(c.p - start);
    return true;
}

bool afx_json_element(const char *json, size_t len, size_t index, const char **val, size_t *vlen)
{
    struct cursor c = { json, json + len };
    blanks(&c);
    if (c.p >= c.end || *c.p != '[')
        return false;
    c.p++;
    for (size_t i = 0;; i++) {
        blanks(&c);
        if (c.p >= c.end || *c.p == ']')
            return false;
        const char *start = c.p;
        if (!skip_value(&c, 1))
            return false;
        if (i == index) {
            *val = start;
            *vlen = (size_t)(c.p - start);
            return true;
        }
        blanks(&c);
        if (c.p >= c.end || *c.p++ != ',')
            return false;
    }
}

size_t afx_json_count_members(const char *json, size_t len, const char *key)
{
    struct cursor c = { json, json + len };
    size_t n = 0;
    blanks(&c);
    if (c.p >= c.end || *c.p != '{')
        return 0;
    c.p++;
    blanks(&c);
    if (c.p < c.end && *c.p == '}')
        return 0;
    for (;;) {
        blanks(&c);
        const char *name = c.p;
        if (!skip_string(&c))
            return n;
        n += name_is(name, c.p, key);
        blanks(&c);
        if (c.p >= c.end || *c.p++ != ':' || !skip_value(&c, 1))
            return n;
        blanks(&c);
        if (c.p >= c.end || *c.p++ != ',')
            return n;
    }
}

static int hex(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

bool afx_json_string(const char *val, size_t vlen, char *out, size_t size)
{
    size_t n = 0;
    if (vlen < 2 || val[0] != '"' || val[vlen - 1] != '"' || size == 0)
        return false;
    for (size_t i = 1; i < vlen - 1; i++) {
        unsigned char ch = (unsigned char)val[i];
        if (ch == '\\') {
            if (++i >= vlen - 1)
                return false;
            switch (val[i]) {
            case '"': case '\\': case '/': ch = (unsigned char)val[i]; break;
            case 'b': ch = '\b'; break;
            case 'f': ch = '\f'; break;
            case 'n': ch = '\n'; break;
            case 'r': ch = '\r'; break;
            case 't': ch = '\t'; break;
            case 'u': {
                int code = 0;
                for (int k = 1; k <= 4; k++) {
                    int h = i + (size_t)k < vlen - 1 ? hex(val[i + (size_t)k]) : -1;
                    if (h < 0)
                        return false;
                    code = code * 16 + h;
                }
                if (code == 0 || code > 0x7f)
                    return false;
                ch = (unsigned char)code;
                i += 4;
                break;
            }
            default:
                return false;
            }
        } else if (ch < 0x20 || ch > 0x7e) {
            return false;
        }
        if (n + 1 >= size)
            return false;
        out[n++] = (char)ch;
    }
    out[n] = '\0';
    return true;
}

bool afx_json_positive(const char *val, size_t vlen, long *out)
{
    char text[24], *end;
    if (vlen == 0 || vlen >= sizeof text || val[0] < '1' || val[0] > '9')
        return false;
    memcpy(text, val, vlen);
    text[vlen] = '\0';
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0')
        return false;
    *out = v;
    return true;
}
