/* fixedrandom.so: getrandom(3) that fills every buffer with zeros, for
 * the tests of inspect --output.  Preloaded, it makes the random name of
 * --output's new file one name known in advance, tried again at each
 * try: a test can plant something at every name the command may pick. */
#include <string.h>
#include <sys/random.h>

ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
    (void)flags;
    memset(buf, 0, len);
    return (ssize_t)len;
}
