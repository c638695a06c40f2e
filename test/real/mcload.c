/* A bounded load for a memcached on 127.0.0.1: opens CONNS connections
 * first (memcached hands them to its worker threads in turn, so every
 * worker gets one), then on each runs ROUNDS set/get pairs of a value
 * larger than tcache serves.  Stops by itself: at the end of the rounds,
 * at the first error, or after SECONDS.
 *
 *   mcload PORT CONNS ROUNDS SECONDS */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

enum { MAX_CONNS = 256, VALUE_SIZE = 4000 };

static int connect_local(int port, int seconds)
{
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
    struct timeval limit = { .tv_sec = seconds };
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int send_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Read until the reply ends with END (a get) or a line (a set). */
static int read_reply(int fd, const char *end)
{
    static char buf[VALUE_SIZE + 256];
    size_t len = 0, endlen = strlen(end);
    for (;;) {
        ssize_t n = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        len += (size_t)n;
        if (len >= endlen && memcmp(buf + len - endlen, end, endlen) == 0)
            return 0;
        if (len == sizeof buf - 1)
            return -1;
    }
}

/* A set and a get; each request goes out in one send, as clients do. */
static int round_trip(int fd, int conn, int round)
{
    static char request[VALUE_SIZE + 128];
    int len = snprintf(request, sizeof request, "set k%d.%d 0 0 %d\r\n", conn, round, VALUE_SIZE);
    memset(request + len, 'a' + (conn + round) % 26, VALUE_SIZE);
    len += VALUE_SIZE;
    memcpy(request + len, "\r\n", 2);
    len += 2;
    if (send_all(fd, request, (size_t)len) < 0 || read_reply(fd, "STORED\r\n") < 0)
        return -1;
    len = snprintf(request, sizeof request, "get k%d.%d\r\n", conn, round);
    if (send_all(fd, request, (size_t)len) < 0 || read_reply(fd, "END\r\n") < 0)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: mcload PORT CONNS ROUNDS SECONDS\n");
        return 2;
    }
    int port = atoi(argv[1]), conns = atoi(argv[2]), rounds = atoi(argv[3]);
    int seconds = atoi(argv[4]);
    if (port < 1 || port > 65535 || conns < 1 || conns > MAX_CONNS || rounds < 1
        || seconds < 1) {
        fprintf(stderr, "mcload: bad arguments\n");
        return 2;
    }
    alarm((unsigned)seconds); /* the default action ends us: bounded whatever happens */
    int fds[MAX_CONNS];
    for (int c = 0; c < conns; c++) {
        fds[c] = connect_local(port, seconds);
        if (fds[c] < 0) {
            fprintf(stderr, "mcload: connection %d to 127.0.0.1:%d: %s\n", c, port,
                    strerror(errno));
            return 1;
        }
    }
    for (int r = 0; r < rounds; r++)
        for (int c = 0; c < conns; c++)
            if (round_trip(fds[c], c, r) < 0) {
                fprintf(stderr, "mcload: connection %d, round %d: %s\n", c, r,
                        errno != 0 ? strerror(errno) : "unexpected reply");
                return 1;
            }
    for (int c = 0; c < conns; c++)
        close(fds[c]);
    return 0;
}
