#include "escape.h"

#include <stdbool.h>
#include <string.h>

/* The escape of byte c into item; its length.  raw: a backslash as it
 * is (only for a text with nothing else to escape). */
static size_t escape_byte(unsigned char c, bool raw, char item[4])
{
    if (c == '\\' && !raw) {
        item[0] = item[1] = '\\';
        return 2;
    }
    if (c >= 0x20 && c < 0x7f) {
        item[0] = (char)c;
        return 1;
    }
    item[0] = '\\';
    item[1] = (char)('0' + (c >> 6));
    item[2] = (char)('0' + ((c >> 3) & 7));
    item[3] = (char)('0' + (c & 7));
    return 4;
}

static char *escape(const char *s, bool raw, char *out, size_t size)
{
    static const char ellipsis[] = "...";
    char item[4];
    size_t total = 0, used = 0;
    if (size == 0)
        return out;
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++)
        total += escape_byte(*p, raw, item);
    /* What does not fit is cut at a whole escape, with "..." after it. */
    size_t room = total < size ? size - 1 : size >= sizeof ellipsis ? size - sizeof ellipsis : 0;
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        size_t n = escape_byte(*p, raw, item);
        if (used + n > room)
            break;
        memcpy(out + used, item, n);
        used += n;
    }
    if (total >= size && size >= sizeof ellipsis) {
        memcpy(out + used, ellipsis, sizeof ellipsis);
        return out;
    }
    out[used] = '\0';
    return out;
}

char *afx_escape(const char *s, char *out, size_t size)
{
    return escape(s, false, out, size);
}

char *afx_printable(const char *s, char *out, size_t size)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p >= 0x20 && *p < 0x7f)
        p++;
    return escape(s, *p == '\0', out, size);
}
