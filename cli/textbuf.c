#include "textbuf.h"

#include <stdlib.h>
#include <string.h>

void afx_textbuf_add(struct afx_textbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *data = realloc(b->data, cap);
        if (data == NULL) {
            b->oom = true;
            return;
        }
        b->data = data;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}
