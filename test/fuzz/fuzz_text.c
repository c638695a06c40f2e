/* libFuzzer target: what the command prints of a process's text
 * (cli/escape.c for the terminal, common/json.c for --json).
 *
 * Oracles, beyond ASan and UBSan:
 *   - the terminal's copy is printable ASCII only, and unescapes back to
 *     the input (or, cut to fit, to a prefix of it, marked "...");
 *   - a path's copy for standard output (afx_printable) is the input
 *     itself when that is printable ASCII and fits, else the terminal's
 *     copy, byte for byte;
 *   - the JSON string is ASCII only, and decodes to what a WHATWG UTF-8
 *     decoder (written here from the Encoding Standard, independently
 *     of json.c) makes of the input: the same code points, with one
 *     U+FFFD for each maximal ill-formed subpart. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/escape.c"
#include "../../common/json.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t unescape(const char *s, size_t len, char *out)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\\') {
            out[n++] = s[i];
        } else if (s[i + 1] == '\\') {
            out[n++] = '\\';
            i++;
        } else {
            out[n++] = (char)((s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 | (s[i + 3] - '0'));
            i += 3;
        }
    }
    return n;
}

static void check_escape(const char *in, size_t len, size_t size)
{
    char *out = malloc(size), *back = malloc(size + 1);
    afx_escape(in, out, size);
    size_t olen = strlen(out);
    if (olen >= size)
        abort();
    for (size_t i = 0; i < olen; i++)
        if (out[i] < 0x20 || out[i] > 0x7e)
            abort();
    size_t full = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        full += c == '\\' ? 2 : c >= 0x20 && c < 0x7f ? 1 : 4;
    }
    bool cut = full >= size;
    if (cut && (size >= 4 ? olen < 3 || strcmp(out + olen - 3, "...") != 0 : olen != 0))
        abort();
    size_t blen = unescape(out, cut && size >= 4 ? olen - 3 : olen, back);
    if (cut ? blen > len || memcmp(back, in, blen) != 0 : blen != len || memcmp(back, in, len) != 0)
        abort();
    free(out);
    free(back);
}

static void check_printable(const char *in, size_t len, size_t size)
{
    char *out = malloc(size), *escaped = malloc(size);
    afx_printable(in, out, size);
    afx_escape(in, escaped, size);
    bool plain = true;
    for (size_t i = 0; i < len; i++)
        plain = plain && in[i] >= 0x20 && in[i] <= 0x7e;
    if (plain ? len < size && strcmp(out, in) != 0 : strcmp(out, escaped) != 0)
        abort();
    free(out);
    free(escaped);
}

/* The Encoding Standard's UTF-8 decoder, code points into cps. */
static size_t whatwg_decode(const unsigned char *s, size_t len, uint32_t *cps)
{
    size_t n = 0, i = 0;
    uint32_t cp = 0;
    int needed = 0, seen = 0;
    unsigned lower = 0x80, upper = 0xbf;
    while (i < len) {
        unsigned b = s[i];
        if (needed == 0) {
            i++;
            if (b <= 0x7f) {
                cps[n++] = b;
            } else if (b >= 0xc2 && b <= 0xdf) {
                needed = 1;
                cp = b & 0x1f;
            } else if (b >= 0xe0 && b <= 0xef) {
                lower = b == 0xe0 ? 0xa0 : 0x80;
                upper = b == 0xed ? 0x9f : 0xbf;
                needed = 2;
                cp = b & 0xf;
            } else if (b >= 0xf0 && b <= 0xf4) {
                lower = b == 0xf0 ? 0x90 : 0x80;
                upper = b == 0xf4 ? 0x8f : 0xbf;
                needed = 3;
                cp = b & 0x7;
            } else {
                cps[n++] = 0xfffd;
            }
            continue;
        }
        if (b < lower || b > upper) {
            cp = needed = seen = 0;
            lower = 0x80;
            upper = 0xbf;
            cps[n++] = 0xfffd;
            continue;   /* the byte is read again */
        }
        i++;
        lower = 0x80;
        upper = 0xbf;
        cp = cp << 6 | (b & 0x3f);
        if (++seen == needed) {
            cps[n++] = cp;
            cp = needed = seen = 0;
        }
    }
    if (needed != 0)
        cps[n++] = 0xfffd;
    return n;
}

static unsigned hex4(const char *p)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            abort();
        v = v << 4 | (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
    }
    return v;
}

/* The JSON string's code points; aborts on anything but ASCII JSON. */
static size_t json_decode(const char *s, size_t len, uint32_t *cps)
{
    size_t n = 0;
    if (len < 2 || s[0] != '"' || s[len - 1] != '"')
        abort();
    for (size_t i = 1; i < len - 1; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c > 0x7e || c == '"')
            abort();
        if (c != '\\') {
            cps[n++] = c;
            continue;
        }
        c = (unsigned char)s[++i];
        if (c == '"' || c == '\\') {
            cps[n++] = c;
            continue;
        }
        if (c != 'u' || i + 4 >= len)
            abort();
        uint32_t u = hex4(s + i + 1);
        i += 4;
        if (u >= 0xd800 && u <= 0xdbff) {
            if (s[i + 1] != '\\' || s[i + 2] != 'u')
                abort();
            uint32_t lo = hex4(s + i + 3);
            if (lo < 0xdc00 || lo > 0xdfff)
                abort();
            u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
            i += 6;
        } else if (u >= 0xdc00 && u <= 0xdfff) {
            abort();
        }
        cps[n++] = u;
    }
    return n;
}

static void check_json(const char *in, size_t len)
{
    char *out = NULL;
    size_t olen = 0;
    FILE *f = open_memstream(&out, &olen);
    afx_json_quote(f, in);
    fclose(f);
    uint32_t *want = malloc((len + 1) * sizeof *want), *got = malloc((olen + 1) * sizeof *got);
    size_t nwant = whatwg_decode((const unsigned char *)in, len, want);
    size_t ngot = json_decode(out, olen, got);
    if (nwant != ngot || memcmp(want, got, nwant * sizeof *want) != 0)
        abort();
    free(want);
    free(got);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t room = data[0];      /* the buffer afx_escape is given */
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    size_t len = strlen(text);  /* C strings: up to the first NUL */
    check_escape(text, len, room + 1);
    check_escape(text, len, AFX_ESCAPED_SIZE(len));
    check_printable(text, len, room + 1);
    check_printable(text, len, AFX_ESCAPED_SIZE(len));
    check_json(text, len);
    free(text);
    return 0;
}
