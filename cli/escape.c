#include "escape.h"

#include <string.h>

/* The escape of byte c into item; its length. */
static size_t escape_byte(unsigned char c, char item[4])
{
    if (c == '\\') {
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

char *afx_escape(const char *s, char *out, size_t size)
{
    static const char ellipsis[] = "...";
    char item[4];
    size_t total = 0, used = 0;
    if (size == 0)
        return out;
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++)
        total += escape_byte(*p, item);
    /* What does not fit is cut at a whole escape, with "..." after it. */
    size_t room = total < size ? size - 1 : size >= sizeof ellipsis ? size - sizeof ellipsis : 0;
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        size_t n = escape_byte(*p, item);
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
