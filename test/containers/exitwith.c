/* A program that says it ran and exits with the status it is given:
 * built for musl, the image the OCI hook must leave alone. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    puts("ran");
    return argc > 1 ? atoi(argv[1]) : 0;
}
