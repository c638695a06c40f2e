#include "unitfile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textbuf.h"

/* systemd's limits and character classes (conf-parser.h, string-util.h). */
#define LONG_LINE_MAX (1U << 20)
#define WHITESPACE " \t\n\r"
#define COMMENTS "#;"
#define UNIT_NAME_MAX 256

/* ---- a growable string (textbuf.h) --------------------------------- */

static void buf_char(struct afx_textbuf *b, char c)
{
    afx_textbuf_add(b, &c, 1);
}

/* ---- UTF-8 (utf8.c) ---------------------------------------------------- */

/* unichar_is_valid(): no surrogates, no noncharacters, up to U+10FFFF. */
static bool unichar_valid(uint32_t u)
{
    return u < 0x110000 && (u & 0xfffff800) != 0xd800 && !(u >= 0xfdd0 && u <= 0xfdef) && (u & 0xfffe) != 0xfffe;
}

bool afx_utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    while (p < end) {
        unsigned c = *p;
        size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
        if (n == 0 || (size_t)(end - p) < n)
            return false;
        uint32_t u = n == 1 ? c : c & (0x7f >> n);
        for (size_t i = 1; i < n; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return false;
            u = u << 6 | (p[i] & 0x3f);
        }
        static const uint32_t least[] = { 0, 0, 0x80, 0x800, 0x10000 };
        if (u < least[n] || !unichar_valid(u))
            return false;
        p += n;
    }
    return true;
}

static void utf8_add(struct afx_textbuf *b, uint32_t u)
{
    char out[4];
    size_t n;
    if (u < 0x80) {
        out[0] = (char)u, n = 1;
    } else if (u < 0x800) {
        out[0] = (char)(0xc0 | u >> 6), out[1] = (char)(0x80 | (u & 0x3f)), n = 2;
    } else if (u < 0x10000) {
        out[0] = (char)(0xe0 | u >> 12), out[1] = (char)(0x80 | (u >> 6 & 0x3f));
        out[2] = (char)(0x80 | (u & 0x3f)), n = 3;
    } else {
        out[0] = (char)(0xf0 | u >> 18), out[1] = (char)(0x80 | (u >> 12 & 0x3f));
        out[2] = (char)(0x80 | (u >> 6 & 0x3f)), out[3] = (char)(0x80 | (u & 0x3f)), n = 4;
    }
    afx_textbuf_add(b, out, n);
}

/* ---- words (escape.c, extract-word.c) ---------------------------------- */

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* One C escape after a backslash, as cunescape_one() without NULs: the
 * characters it takes, or -1.  *byte: u is a raw byte, not a code point. */
static int cunescape_one(const char *p, uint32_t *u, bool *byte)
{
    static const char simple[] = "abfnrtv\\\"'s", value[] = "\a\b\f\n\r\t\v\\\"' ";
    const char *hit = *p != '\0' ? strchr(simple, *p) : NULL;
    *byte = false;
    if (hit != NULL) {
        *u = (unsigned char)value[hit - simple];
        return 1;
    }
    int digits = *p == 'x' ? 2 : *p == 'u' ? 4 : *p == 'U' ? 8 : 0;
    if (digits > 0) {
        uint32_t v = 0;
        for (int i = 1; i <= digits; i++) {
            int h = hexval(p[i]);
            if (h < 0)
                return -1;
            v = v << 4 | (uint32_t)h;
        }
        if (v == 0 || (*p == 'U' && !unichar_valid(v)))
            return -1;
        *u = v;
        *byte = *p == 'x';
        return digits + 1;
    }
    if (*p >= '0' && *p <= '7') {
        uint32_t v = 0;
        for (int i = 0; i < 3; i++) {
            if (p[i] < '0' || p[i] > '7')
                return -1;
            v = v << 3 | (uint32_t)(p[i] - '0');
        }
        if (v == 0 || v > 255)
            return -1;
        *u = v;
        *byte = true;
        return 3;
    }
    return -1;
}

/* The escape after a backslash at p, appended to w as systemd decodes
 * it (a raw byte for \xNN and octal, UTF-8 for the others): the
 * characters it takes, or -1. */
static int unescape(const char *p, struct afx_textbuf *w)
{
    uint32_t u;
    bool byte;
    int n = cunescape_one(p, &u, &byte);
    if (n > 0 && byte)
        buf_char(w, (char)u);
    else if (n > 0)
        utf8_add(w, u);
    return n;
}

/* The next word of *p as extract_first_word(EXTRACT_CUNESCAPE |
 * EXTRACT_UNQUOTE) cuts it: quotes anywhere in a word, C escapes inside
 * and outside them.  1 and the word in *w, 0 at the end, -1 on bad
 * syntax (systemd then ignores the rest of the line). */
static int next_word(const char **p, struct afx_textbuf *w)
{
    const char *s = *p + strspn(*p, WHITESPACE);
    w->len = 0;
    afx_textbuf_add(w, "", 0);
    if (*s == '\0')
        return 0;
    char quote = 0;
    for (;;) {
        char c = *s;
        if (c == '\0') {
            if (quote != 0)
                return -1;
            break;
        }
        if (c == '\\') {
            int n = unescape(s + 1, w);
            if (n < 0)
                return -1;
            s += 1 + n;
        } else if (quote != 0) {
            if (c != quote)
                buf_char(w, c);
            else
                quote = 0;
            s++;
        } else if (c == '"' || c == '\'') {
            quote = c;
            s++;
        } else if (strchr(WHITESPACE, c) != NULL) {
            break;
        } else {
            buf_char(w, c);
            s++;
        }
    }
    *p = s;
    return 1;
}

/* The first specifier in s[0..n) other than "%%", or 0.  Only systemd
 * knows what they stand for when it loads the unit (%h: the user's home). */
static char specifier_in(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '%') {
            if (s[i + 1] != '%')
                return s[i + 1];
            i++;
        }
    return 0;
}

/* s[0..n) with "%%" read as "%" (a lone "%" at the end stays). */
static void unpercent(struct afx_textbuf *out, const char *s, size_t n)
{
    out->len = 0;
    afx_textbuf_add(out, "", 0);
    for (size_t i = 0; i < n; i++) {
        buf_char(out, s[i]);
        if (s[i] == '%' && i + 1 < n)
            i++;
    }
}

/* ---- the environment a unit gives ------------------------------------- */

void afx_unit_env_init(struct afx_unit_env *e)
{
    memset(e, 0, sizeof *e);
}

void afx_unit_env_free(struct afx_unit_env *e)
{
    free(e->preload);
    e->preload = NULL;
}

bool afx_unit_env_copy(struct afx_unit_env *dst, const struct afx_unit_env *src)
{
    *dst = *src;
    dst->preload = src->preload != NULL ? strdup(src->preload) : NULL;
    return src->preload == NULL || dst->preload != NULL;
}

bool afx_unit_env_set(struct afx_unit_env *e, const char *value)
{
    char *copy = strdup(value);
    if (copy == NULL)
        return false;
    free(e->preload);
    e->preload = copy;
    e->state = AFX_ENV_SET;
    return true;
}

bool afx_unit_env_same(const struct afx_unit_env *a, const struct afx_unit_env *b)
{
    if (a->state != b->state || a->state == AFX_ENV_UNSURE)
        return false;
    return a->state == AFX_ENV_UNSET || strcmp(a->preload, b->preload) == 0;
}

struct parse {
    struct afx_unit_env *e;
    const char *file;
    unsigned line;
    bool service;       /* in [Service] */
    struct afx_textbuf word, tmp;
};

static void unset(struct afx_unit_env *e)
{
    free(e->preload);
    e->preload = NULL;
    e->state = AFX_ENV_UNSET;
}

static void unsure(struct parse *p, char spec, const char *what)
{
    unset(p->e);
    p->e->state = AFX_ENV_UNSURE;
    snprintf(p->e->unsure, sizeof p->e->unsure,
             "%s line %u: %s uses the specifier %%%c, which systemd fills in when it loads the unit",
             p->file, p->line, what, spec);
}

/* One word of Environment= (config_parse_environ): specifiers resolved,
 * then kept only if a valid assignment; the last LD_PRELOAD= wins. */
static void environment_word(struct parse *p)
{
    const char *w = p->word.data, *eq = memchr(w, '=', p->word.len);
    if (eq == NULL)
        return;
    size_t name_len = (size_t)(eq - w), value_len = p->word.len - name_len - 1;
    char spec = specifier_in(w, name_len);
    if (spec != 0) {
        /* A name systemd computes may turn out to be LD_PRELOAD. */
        unsure(p, spec, "the name of a variable in Environment=");
        return;
    }
    unpercent(&p->tmp, w, name_len);
    if (strcmp(p->tmp.data, "LD_PRELOAD") != 0)
        return;
    spec = specifier_in(eq + 1, value_len);
    if (spec != 0) {
        unsure(p, spec, "LD_PRELOAD");
        return;
    }
    unpercent(&p->tmp, eq + 1, value_len);
    if (p->tmp.oom || !afx_utf8_valid(p->tmp.data, p->tmp.len))
        return;     /* systemd ignores it */
    if (!afx_unit_env_set(p->e, p->tmp.data))
        p->word.oom = true;
}

static void environment(struct parse *p, const char *rvalue)
{
    if (*rvalue == '\0') {
        unset(p->e);    /* an empty assignment resets the list */
        return;
    }
    for (const char *s = rvalue; next_word(&s, &p->word) > 0;)
        environment_word(p);
}

static void unset_environment(struct parse *p, const char *rvalue)
{
    if (*rvalue == '\0') {
        p->e->unsets_preload = false;
        return;
    }
    for (const char *s = rvalue; next_word(&s, &p->word) > 0;) {
        unpercent(&p->tmp, p->word.data, p->word.len);
        const char *w = p->tmp.data;
        if (strcmp(w, "LD_PRELOAD") == 0 || strncmp(w, "LD_PRELOAD=", 11) == 0
            || specifier_in(p->word.data, p->word.len) != 0)
            p->e->unsets_preload = true;
    }
}

static char *strip(char *s)
{
    s += strspn(s, WHITESPACE);
    size_t n = strlen(s);
    while (n > 0 && strchr(WHITESPACE, s[n - 1]) != NULL)
        s[--n] = '\0';
    return s;
}

static void broken(struct parse *p, const char *why)
{
    snprintf(p->e->broken, sizeof p->e->broken, "%s line %u: %s: systemd refuses the unit", p->file, p->line, why);
}

/* A section name systemd accepts (string_is_safe()). */
static bool safe_section(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < ' ' || s[i] == 127 || strchr("\\\"'", s[i]) != NULL)
            return false;
    return true;
}

/* One logical line (conf-parser.c's parse_line()). */
static void parse_line(struct parse *p, char *line)
{
    char *l = strip(line);
    if (*l == '\0')
        return;
    if (!afx_utf8_valid(l, strlen(l))) {
        broken(p, "not UTF-8");
        return;
    }
    if (*l == '[') {
        size_t k = strlen(l);
        if (l[k - 1] != ']') {
            broken(p, "invalid section header");
            return;
        }
        if (!safe_section(l + 1, k - 2)) {
            broken(p, "bad characters in section header");
            return;
        }
        p->service = k == 9 && strncmp(l + 1, "Service", 7) == 0;
        return;
    }
    char *eq = strchr(l, '=');
    if (!p->service || eq == NULL || eq == l)
        return;
    *eq = '\0';
    const char *key = strip(l), *rvalue = strip(eq + 1);
    if (strcmp(key, "Environment") == 0)
        environment(p, rvalue);
    else if (strcmp(key, "EnvironmentFile") == 0)
        p->e->environment_files = *rvalue != '\0';
    else if (strcmp(key, "UnsetEnvironment") == 0)
        unset_environment(p, rvalue);
}

/* The next line of text[*pos..len) as read_line() cuts it: \n, \r and
 * NUL end a line; a run of different ones ("\r\n", "\n\r") ends one
 * line, and nothing after a NUL belongs to its line end. */
static bool next_line(const char *t, size_t len, size_t *pos, size_t *start, size_t *n)
{
    size_t i = *pos;
    if (i >= len)
        return false;
    *start = i;
    while (i < len && t[i] != '\n' && t[i] != '\r' && t[i] != '\0')
        i++;
    *n = i - *start;
    for (int seen = 0; i < len;) {
        int eol = t[i] == '\n' ? 1 : t[i] == '\r' ? 2 : t[i] == '\0' ? 4 : 0;
        if (eol == 0 || (seen & 4) || (seen & eol))
            break;
        seen |= eol;
        i++;
    }
    *pos = i;
    return true;
}

/* config_parse(): comments, the byte-order mark, continuation lines. */
void afx_unit_env_apply(struct afx_unit_env *e, const char *text, size_t len, const char *file)
{
    struct parse p = { .e = e, .file = file };
    struct afx_textbuf line = { 0 }, cont = { 0 };
    bool continued = false, bom_seen = false;
    size_t pos = 0, start, n;
    while (e->broken[0] == '\0' && next_line(text, len, &pos, &start, &n)) {
        p.line++;
        if (n >= LONG_LINE_MAX) {
            broken(&p, "line too long");
            break;
        }
        line.len = 0;
        afx_textbuf_add(&line, text + start, n);
        if (line.oom)
            break;
        const char *l = line.data + strspn(line.data, WHITESPACE);
        if (*l != '\0' && strchr(COMMENTS, *l) != NULL)
            continue;   /* even inside a continuation */
        l = line.data;
        if (!bom_seen && strncmp(l, "\xef\xbb\xbf", 3) == 0) {
            l += 3;
            bom_seen = true;
        }
        if (!continued)
            cont.len = 0;
        size_t from = cont.len, add = strlen(l);
        if (continued && from + add > LONG_LINE_MAX) {
            broken(&p, "continuation line too long");
            break;
        }
        afx_textbuf_add(&cont, l, add);
        if (cont.oom)
            break;
        /* The text before ends unescaped: its trailing backslash became a space. */
        bool escaped = false;
        for (size_t i = from; i < cont.len; i++)
            escaped = !escaped && cont.data[i] == '\\';
        if (escaped) {
            cont.data[cont.len - 1] = ' ';
            continued = true;
            continue;
        }
        parse_line(&p, cont.data);
        continued = false;
    }
    if (continued && e->broken[0] == '\0' && !cont.oom) {
        p.line++;
        parse_line(&p, cont.data);
    }
    if (line.oom || cont.oom || p.word.oom || p.tmp.oom)
        snprintf(e->broken, sizeof e->broken, "%s: out of memory", file);
    free(line.data);
    free(cont.data);
    free(p.word.data);
    free(p.tmp.data);
}

/* ---- systemctl show --------------------------------------------------- */

/* One word as shell_maybe_quote() wrote it: bare, or in double quotes
 * with \ before \ " ` $ and C escapes for control characters. */
static int show_word(const char **p, struct afx_textbuf *w)
{
    const char *s = *p;
    w->len = 0;
    afx_textbuf_add(w, "", 0);
    if (*s != '"') {
        size_t n = strcspn(s, " \n");
        afx_textbuf_add(w, s, n);
        *p = s + n;
        return 1;
    }
    for (s++; *s != '"'; s++) {
        if (*s == '\0')
            return -1;
        if (*s != '\\') {
            buf_char(w, *s);
            continue;
        }
        s++;
        if (*s != '\0' && strchr("\\\"`$", *s) != NULL) {
            buf_char(w, *s);
            continue;
        }
        int n = unescape(s, w);
        if (n < 0)
            return -1;
        s += n - 1;
    }
    *p = s + 1;
    return 1;
}

int afx_show_preload(const char *show, char **value)
{
    *value = NULL;
    const char *line = show;
    while (line != NULL && strncmp(line, "Environment=", 12) != 0) {
        line = strchr(line, '\n');
        line = line != NULL ? line + 1 : NULL;
    }
    if (line == NULL)
        return 0;
    struct afx_textbuf w = { 0 };
    int found = 0;
    for (const char *p = line + 12; *p != '\n' && *p != '\0';) {
        if (show_word(&p, &w) < 0 || w.oom || (*p != ' ' && *p != '\n' && *p != '\0')) {
            found = -1;
            break;
        }
        if (*p == ' ')
            p++;
        if (strncmp(w.data, "LD_PRELOAD=", 11) == 0) {
            free(*value);
            *value = strdup(w.data + 11);
            found = *value != NULL ? 1 : -1;
            if (found < 0)
                break;
        }
    }
    free(w.data);
    if (found < 0) {
        free(*value);
        *value = NULL;
    }
    return found;
}

/* ---- unit names (unit-name.c, dropin.c) -------------------------------- */

bool afx_unit_name(const char *name, char *service, size_t size)
{
    static const char allowed[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@";
    size_t len = strlen(name);
    if (len == 0 || name[0] == '.' || name[0] == '@' || name[strspn(name, allowed)] != '\0')
        return false;   /* also ".service" and "@.service" alone */
    const char *dot = strrchr(name, '.');
    if (dot != NULL && strcmp(dot, ".service") != 0)
        return false;
    const char *at = strchr(name, '@');
    if (at != NULL && strchr(at + 1, '@') != NULL)
        return false;
    int n = snprintf(service, size, "%s%s", name, dot ? "" : ".service");
    return n > 0 && (size_t)n < size && n < UNIT_NAME_MAX;
}

bool afx_unit_is_template(const char *service)
{
    const char *at = strchr(service, '@');
    return at != NULL && strcmp(at, "@.service") == 0;
}

/* unit_file_find_dirs(): the name, its template, its "-" prefix (which
 * recurses in turn), as systemd 252 walks them. */
static bool dropin_names(const char *name, bool (*fn)(const char *, void *), void *arg)
{
    if (!fn(name, arg))
        return false;
    const char *at = strchr(name, '@'), *suffix = strrchr(name, '.');
    bool instance = at != NULL && at + 1 != suffix;
    char prefix[UNIT_NAME_MAX + 16];
    if (instance) {
        snprintf(prefix, sizeof prefix, "%.*s@%s", (int)(at - name), name, suffix);
        if (!dropin_names(prefix, fn, arg))
            return false;
    }
    const char *end = at != NULL ? at : suffix;
    snprintf(prefix, sizeof prefix, "%.*s", (int)(end - name), name);
    bool chopped = false;
    for (;;) {
        char *dash = strrchr(prefix, '-');
        if (dash == NULL || dash == prefix)
            return true;
        if (dash[1] != '\0' || chopped) {
            dash[1] = '\0';
            break;
        }
        *dash = '\0';   /* a trailing dash: chop it off once */
        chopped = true;
    }
    char built[2 * UNIT_NAME_MAX + 16];
    if (instance)
        snprintf(built, sizeof built, "%s%.*s", prefix, (int)strlen(at), at);
    else
        snprintf(built, sizeof built, "%s%s", prefix, suffix);
    return dropin_names(built, fn, arg);
}

bool afx_unit_dropin_names(const char *service, bool (*fn)(const char *name, void *arg), void *arg)
{
    return dropin_names(service, fn, arg);
}

/* ---- the drop-in ------------------------------------------------------- */

char *afx_dropin_text(const char *unit, const char *ld_preload)
{
    size_t len = strlen(ld_preload);
    if (len == 0 || !afx_utf8_valid(ld_preload, len))
        return NULL;
    /* Inside systemd's double quotes: backslash and quote escaped, %
     * doubled (specifiers), control characters as \xNN: one line. */
    struct afx_textbuf q = { 0 };
    for (const char *p = ld_preload; *p != '\0'; p++) {
        unsigned char c = (unsigned char)*p;
        char hex[8];
        if (c < ' ' || c == 127) {
            snprintf(hex, sizeof hex, "\\x%02x", c);
            afx_textbuf_add(&q, hex, 4);
        } else {
            if (c == '"' || c == '\\')
                buf_char(&q, '\\');
            else if (c == '%')
                buf_char(&q, '%');
            buf_char(&q, (char)c);
        }
    }
    char *text = NULL;
    if (!q.oom && asprintf(&text,
                           AFX_DROPIN_HEADER "; remove with: arenafix disable %s\n"
                           "# Adds libarenafix to the service's LD_PRELOAD, keeping what the\n"
                           "# unit already preloads (see arenafix-enable(1), libarenafix(7)).\n"
                           "[Service]\n"
                           "Environment=\"LD_PRELOAD=%s\"\n",
                           unit, q.data) < 0)
        text = NULL;
    free(q.data);
    return text;
}

bool afx_dropin_is_ours(const char *text, size_t len)
{
    size_t n = strlen(AFX_DROPIN_HEADER);
    return len > n && memcmp(text, AFX_DROPIN_HEADER, n) == 0 && (text[n] == ';' || text[n] == '\n');
}
