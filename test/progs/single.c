/* A single-threaded program that never pins: arenafix must cost it
 * nothing.  It does some ordinary work so the trace has substance. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char *volatile p = malloc(4096);
    memset(p, 'x', 4096);
    printf("single: %c\n", p[100]);
    free(p);
    return 0;
}
