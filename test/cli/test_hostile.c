/* The command's readers of what a process controls (its name, maps,
 * status, environment, memory), called directly with hostile input,
 * and the judgements made from them. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "arenarule.h"
#include "escape.h"
#include "harness.h"
#include "proc/heaps.h"
#include "json.h"
#include "glibcprobe/probe.h"
#include "proc/procenv.h"
#include "proc/procmaps.h"
#include "proc/procstatus.h"
#include "target/verdict.h"
#include "target/inspectread.h"
#include "target/memreader.h"

static char *quoted(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    afx_json_quote(f, s);
    fclose(f);
    return buf;
}

START_TEST(escape_for_the_terminal)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        { "server", "server" },
        { "a b", "a b" },
        { "\033]52;c;YQ==\a", "\\033]52;c;YQ==\\007" },   /* OSC 52: the clipboard */
        { "\033[2J\r", "\\033[2J\\015" },
        { "back\\slash", "back\\\\slash" },
        { "\x7f\x80\xff", "\\177\\200\\377" },
        { "caf\xc3\xa9", "caf\\303\\251" },
        { "", "" },
    };
    char out[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_str_eq(afx_escape(cases[i].in, out, sizeof out), cases[i].want);
    /* Cut short at a whole escape, and said so. */
    ck_assert_str_eq(afx_escape("abcdefghij", out, 8), "abcd...");
    ck_assert_str_eq(afx_escape("\033\033\033", out, 9), "\\033...");
    ck_assert_str_eq(afx_escape("abc", out, 4), "abc");
    ck_assert_str_eq(afx_escape("abcd", out, 4), "...");
    ck_assert_str_eq(afx_escape("abcd", out, 3), "");
}
END_TEST

/* A path shown on standard output: as it is named when that is safe
 * (systemd's escaped unit names keep their backslashes), else all of it
 * escaped as above, each backslash then one of the escapes. */
START_TEST(printable_as_named_or_escaped_whole)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        { "/etc/systemd/system/a\\x2db.service.d", "/etc/systemd/system/a\\x2db.service.d" },
        { "a b:c$d", "a b:c$d" },
        { "/srv/q\001/a\\x2db", "/srv/q\\001/a\\\\x2db" },
        { "\033[2J", "\\033[2J" },
        { "caf\xc3\xa9\\", "caf\\303\\251\\\\" },
        { "", "" },
    };
    char out[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_str_eq(afx_printable(cases[i].in, out, sizeof out), cases[i].want);
    ck_assert_str_eq(afx_printable("a\\bcdefghij", out, 8), "a\\bc...");
    ck_assert_str_eq(afx_printable("\001\001\001", out, 9), "\\001...");
    ck_assert_str_eq(afx_printable("a\\c", out, 4), "a\\c");
}
END_TEST

START_TEST(json_is_ascii_and_valid_whatever_the_bytes)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        { "caf\xc3\xa9", "\"caf\\u00e9\"" },
        { "\xe2\x82\xac", "\"\\u20ac\"" },
        { "\xf0\x9f\x98\x80", "\"\\ud83d\\ude00\"" },           /* above U+FFFF: a pair */
        { "\xff", "\"\\ufffd\"" },
        { "a\xffz", "\"a\\ufffdz\"" },
        { "\xc0\xaf", "\"\\ufffd\\ufffd\"" },                  /* overlong: never well-formed */
        { "\xe0\x80\x80", "\"\\ufffd\\ufffd\\ufffd\"" },
        { "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },       /* a surrogate */
        { "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* past U+10FFFF */
        { "\xe2\x82", "\"\\ufffd\"" },                         /* cut short: one maximal subpart */
        { "\xe2\x82z", "\"\\ufffdz\"" },
        { "\xf0\x9f\x98", "\"\\ufffd\"" },
        { "\x1b[2J\x7f", "\"\\u001b[2J\\u007f\"" },
        { "\xc2\x9b", "\"\\u009b\"" },                         /* C1 CSI, as an escape */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = quoted(cases[i].in);
        ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu: got %s, want %s", i, got, cases[i].want);
        free(got);
    }
}
END_TEST

START_TEST(library_names_are_exact)
{
    static const struct {
        const char *path;
        enum afx_lib kind;
    } cases[] = {
        { "/usr/lib/x86_64-linux-gnu/libc.so.6", AFX_LIB_LIBC },
        { "/usr/lib/x86_64-linux-gnu/libc.so.6 (deleted)", AFX_LIB_LIBC },
        { "/lib/x86_64-linux-gnu/libc-2.31.so", AFX_LIB_LIBC },
        { "/usr/lib64/ld-linux-x86-64.so.2", AFX_LIB_LOADER },
        { "/lib/ld-linux-aarch64.so.1", AFX_LIB_LOADER },
        { "/lib/ld-linux.so.2", AFX_LIB_LOADER },
        { "/lib64/ld64.so.2", AFX_LIB_LOADER },
        { "/lib/ld-2.31.so", AFX_LIB_LOADER },
        { "/opt/x/libarenafix.so", AFX_LIB_ARENAFIX },
        { "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", AFX_LIB_FOREIGN },
        { "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4.5.9", AFX_LIB_FOREIGN },
        { "/usr/lib/libmimalloc.so.2.0", AFX_LIB_FOREIGN },
        /* Names that only start like a library are not it. */
        { "/tmp/libjemalloc-is-not-here", AFX_LIB_NONE },
        { "/tmp/libjemalloc.so.2.txt", AFX_LIB_NONE },
        { "/tmp/libc.so.6.bak", AFX_LIB_NONE },
        { "/tmp/libc.so.6x", AFX_LIB_NONE },
        { "/tmp/ld-linux-x86-64.so.2-evil", AFX_LIB_NONE },
        { "/tmp/ld-linux", AFX_LIB_NONE },
        { "/tmp/ld.so", AFX_LIB_NONE },
        { "/tmp/libarenafix.so.conf", AFX_LIB_NONE },
        { "/tmp/libc-2..so", AFX_LIB_NONE },
        { "/libc.so.6/evil", AFX_LIB_NONE },
        { "", AFX_LIB_NONE },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(afx_lib_kind(cases[i].path, strlen(cases[i].path)) == cases[i].kind, "%s",
                      cases[i].path);
}
END_TEST

static struct afx_maps maps;

/* A data file mapped under a library's name is not that library: only
 * code counts. */
START_TEST(maps_only_code_is_a_library)
{
    afx_maps_scan("10000-11000 r--p 00000000 fe:00 5 /tmp/libjemalloc.so.2\n"
                  "12000-13000 rw-p 00000000 fe:00 6 /tmp/libarenafix.so\n"
                  "14000-15000 r--p 00000000 fe:00 7 /tmp/libc.so.6\n"
                  "7f0000000000-7f0000001000 r-xp 00000000 fe:01 70 /usr/lib/libc.so.6\n",
                  &maps);
    ck_assert_str_eq(maps.foreign, "");
    ck_assert(!maps.arenafix);
    ck_assert_str_eq(maps.libc.path, "/usr/lib/libc.so.6");
    ck_assert_uint_eq(maps.libc.start, 0x7f0000000000UL);
    ck_assert_uint_eq(maps.libc.end, 0x7f0000001000UL);
    ck_assert_uint_eq(maps.libc.dev_minor, 1);
    ck_assert_uint_eq(maps.libc.inode, 70);
}
END_TEST

START_TEST(maps_lines_are_strict)
{
    static const char *const bad[] = {
        "10000-11000 r--p 00000000 fe:00",          /* no inode */
        "10000 r--p 00000000 fe:00 5",
        "11000-10000 r--p 00000000 fe:00 5",        /* ends before it starts */
        "10000-11000 rwzp 00000000 fe:00 5",
        "10000-11000 r--p 00000000 fe00 5",
        "10000-11000 r--p 00000000 fe:00 5x",
        "1000000000000000000-11000 r--p 00000000 fe:00 5",
        "10000-11000 r--p 00000000 fe:00 99999999999999999999999",
        "",
    };
    struct afx_map_line l;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!afx_maps_parse_line(bad[i], strlen(bad[i]), &l), "%s", bad[i]);
    const char *good = "7f1d80000000-7f1d80100000 r-xp 001a2000 fe:01 1234   /a path/with spaces";
    ck_assert(afx_maps_parse_line(good, strlen(good), &l));
    ck_assert_uint_eq(l.offset, 0x1a2000);
    ck_assert_uint_eq(l.dev_major, 0xfe);
    ck_assert_uint_eq(l.inode, 1234);
    ck_assert_int_eq((int)l.path_len, 19);
    ck_assert(strncmp(l.path, "/a path/with spaces", l.path_len) == 0);
}
END_TEST

/* However the text is cut, the scan is the same; a line longer than the
 * kernel writes is not parsed, and nothing is kept from it. */
START_TEST(maps_in_pieces)
{
    static char text[1 << 16];
    snprintf(text, sizeof text,
             "7f1d60000000-7f1d60021000 rw-p 00000000 00:00 0 \n"
             "7f1d60021000-7f1d64000000 ---p 00000000 00:00 0 \n"
             "7f1d80000000-7f1d80100000 r-xp 00000000 fe:00 7 /usr/lib/libc.so.6\n"
             "7f1d80300000-7f1d80301000 r-xp 00000000 fe:00 9 /lib64/ld-linux-x86-64.so.2\n"
             "7f1d84000000-7f1d88000000 rw-p 00000000 00:00 0 \n");
    size_t len = strlen(text);
    static struct afx_maps whole;
    afx_maps_scan(text, &whole);
    ck_assert_int_eq(whole.heaps, 2);
    for (size_t step = 1; step < 90; step += 7) {
        afx_maps_begin(&maps);
        for (size_t i = 0; i < len; i += step)
            afx_maps_feed(&maps, text + i, len - i < step ? len - i : step);
        afx_maps_end(&maps);
        ck_assert_int_eq(maps.heaps, whole.heaps);
        ck_assert_uint_eq(maps.heap_at[1], whole.heap_at[1]);
        ck_assert_str_eq(maps.libc.path, whole.libc.path);
        ck_assert_str_eq(maps.loader.path, whole.loader.path);
        ck_assert_int_eq(maps.lines, 5);
    }
    /* A line of 100000 bytes named libc.so.6 at its end. */
    char *huge = malloc(100100);
    int n = snprintf(huge, 100100, "7f0000000000-7f0000001000 r-xp 00000000 fe:00 7 /");
    memset(huge + n, 'x', 99990 - (size_t)n);
    strcpy(huge + 99990, "/libc.so.6\n");
    afx_maps_scan(huge, &maps);
    ck_assert_str_eq(maps.libc.path, "");
    ck_assert_int_eq(maps.bad_lines, 1);
    free(huge);
}
END_TEST

/* A maps line of code at `start` for a file of exactly `len` bytes of
 * path ending in /name, appended at *end. */
static void code_line(char **end, unsigned long start, size_t len, const char *name)
{
    size_t n = strlen(name);
    *end += sprintf(*end, "%lx-%lx r-xp 00000000 fe:00 7 /", start, start + 0x1000);
    memset(*end, 'x', len - n - 2);
    *end += len - n - 2;
    *end += sprintf(*end, "/%s\n", name);
}

/* Paths of PATH_MAX - 1 bytes fit the buffers; one of PATH_MAX bytes
 * (a name the kernel escapes grows past it) is not kept, and the next
 * libc is. */
START_TEST(maps_paths_as_long_as_the_buffers)
{
    char *text = malloc(4 * PATH_MAX + 512), *end = text;
    code_line(&end, 0x10000, PATH_MAX, "libc.so.6");
    code_line(&end, 0x20000, PATH_MAX, "libjemalloc.so.2");
    code_line(&end, 0x30000, PATH_MAX - 1, "ld-linux-x86-64.so.2");
    code_line(&end, 0x40000, 18, "libc.so.6");
    afx_maps_scan(text, &maps);
    ck_assert_int_eq(maps.lines, 4);
    ck_assert_int_eq(maps.bad_lines, 0);
    ck_assert_msg(strnlen(maps.libc.path, sizeof maps.libc.path) == 18,
                  "libc: kept a path of %zu bytes, want the 18-byte one", strnlen(maps.libc.path, sizeof maps.libc.path));
    ck_assert_uint_eq(maps.libc.start, 0x40000);
    ck_assert_msg(maps.foreign[0] == '\0', "jemalloc: kept a path of %zu bytes, want none",
                  strnlen(maps.foreign, sizeof maps.foreign));
    ck_assert_int_eq(maps.heaps, 0);
    ck_assert_uint_eq(strnlen(maps.loader.path, sizeof maps.loader.path), PATH_MAX - 1);
    ck_assert_uint_eq(maps.loader.start, 0x30000);
    free(text);
}
END_TEST

/* More heaps than the table holds: all counted, the first
 * AFX_MAX_HEAPS kept, nothing written past the table. */
START_TEST(maps_more_heaps_than_the_table)
{
    const long n = AFX_MAX_HEAPS + 1;
    const unsigned long base = 0x400000000000UL;
    char *text = malloc((size_t)n * 64 + 1), *end = text;
    for (long i = 0; i < n; i++) {
        unsigned long at = base + (unsigned long)i * AFX_HEAP_MAX;
        end += sprintf(end, "%lx-%lx rw-p 00000000 00:00 0 \n", at, at + AFX_HEAP_MAX);
    }
    afx_maps_scan(text, &maps);
    ck_assert_int_eq(maps.heaps, n);
    ck_assert_int_eq(maps.kept, AFX_MAX_HEAPS);
    ck_assert_int_eq(maps.lines, n);
    ck_assert_int_eq(maps.bad_lines, 0);
    ck_assert_uint_eq(maps.heap_at[0], base);
    ck_assert_uint_eq(maps.heap_rw[0], AFX_HEAP_MAX);
    ck_assert_uint_eq(maps.heap_at[AFX_MAX_HEAPS - 1], base + (AFX_MAX_HEAPS - 1) * AFX_HEAP_MAX);
    ck_assert_uint_eq(maps.heap_rw[AFX_MAX_HEAPS - 1], AFX_HEAP_MAX);
    free(text);
}
END_TEST

/* A line longer than the buffer, read in two pieces that each fit: not
 * parsed, nothing written past the scanner, the next line read. */
START_TEST(maps_long_line_in_two_pieces)
{
    enum { GUARD = 1 << 15 };
    char *mem = malloc(sizeof(struct afx_maps) + GUARD), *text = malloc(20000 + 512), *end = text;
    struct afx_maps *m = (struct afx_maps *)mem;
    memset(mem + sizeof *m, 0x5a, GUARD);
    code_line(&end, 0x10000, 20000 - strlen("10000-11000 r-xp 00000000 fe:00 7 "), "libc.so.6");
    ck_assert_uint_eq(strchr(text, '\n') - text, 20000);
    code_line(&end, 0x40000, 18, "libc.so.6");
    size_t len = strlen(text);
    afx_maps_begin(m);
    afx_maps_feed(m, text, 10000);
    afx_maps_feed(m, text + 10000, len - 10000);
    afx_maps_end(m);
    size_t past = GUARD;
    while (past > 0 && mem[sizeof *m + past - 1] == 0x5a)
        past--;
    ck_assert_msg(past == 0, "the scanner wrote up to %zu bytes past its end", past);
    ck_assert_int_eq(m->lines, 2);
    ck_assert_int_eq(m->bad_lines, 1);
    ck_assert_uint_eq(m->libc.start, 0x40000);
    ck_assert_uint_eq(strnlen(m->libc.path, sizeof m->libc.path), 18);
    free(text);
    free(mem);
}
END_TEST

START_TEST(status_credentials)
{
    static struct afx_creds c;
    ck_assert(afx_status_creds("Name:\tx\nUid:\t1000\t1001\t1002\t1003\nGid:\t10\t11\t12\t13\n"
                               "Groups:\t4 24 27 \n",
                               &c));
    ck_assert_uint_eq(c.uid[1], 1001);
    ck_assert_uint_eq(c.gid[3], 13);
    ck_assert_uint_eq(c.ngroups, 3);
    ck_assert_uint_eq(c.groups[2], 27);
    ck_assert(afx_status_creds("Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\n", &c));
    ck_assert_uint_eq(c.ngroups, 0);
    static const char *const bad[] = {
        "Uid:\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\n",           /* three IDs */
        "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n",                 /* no groups */
        "Uid:\t0\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\n",
        "Uid:\t4294967295\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\n",
        "Uid:\t-1\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\n",
        "Uid:\t0x1\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\n",
        "Name:\tUid: 0 0 0 0\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!afx_status_creds(bad[i], &c), "%s", bad[i]);
    char name[16];
    ck_assert(afx_status_field("Name:\t  \033]52;c;YQ==\a\nState:\tS\n", "Name", name, sizeof name));
    ck_assert_str_eq(name, "\033]52;c;YQ==\a");
    ck_assert(!afx_status_field("XName:\tx\n", "Name", name, sizeof name));
}
END_TEST

static void env_facts(const char *block, size_t len, bool secure, struct afx_env_facts *f)
{
    ck_assert(afx_environ_facts(block, len, secure, f));
}

START_TEST(environment_as_the_library_reads_it)
{
    struct afx_env_facts f;
    static const char a[] = "PATH=/bin\0ARENAFIX_MODE=touch\0ARENAFIX_MODE=both\0ARENAFIX_ARENA_MAX=9";
    env_facts(a, sizeof a - 1, false, &f);     /* no NUL after the last */
    ck_assert_int_eq(f.arenafix.mode, AFX_MODE_TOUCH);      /* the first wins */
    ck_assert_int_eq(f.arenafix.arena_max, 9);
    ck_assert(!f.user_limit);
    env_facts(a, sizeof a - 1, true, &f);      /* secure: ignored */
    ck_assert_int_eq(f.arenafix.mode, AFX_MODE_MALLOPT);
    ck_assert_int_eq(f.arenafix.arena_max, 0);
    static const char b[] = "MALLOC_ARENA_MAX=4\0";
    env_facts(b, sizeof b - 1, false, &f);
    ck_assert(f.user_limit);
    static const char c[] = "GLIBC_TUNABLES=glibc.malloc.arena_max=0x10\0";
    env_facts(c, sizeof c - 1, false, &f);
    ck_assert(f.user_limit);
    env_facts("", 0, false, &f);
    ck_assert(!f.user_limit);

    unsigned long auxv[] = { 6, 4096, 23, 1, 0, 0 };   /* AT_PAGESZ, AT_SECURE 1, AT_NULL */
    ck_assert(afx_auxv_secure(auxv, sizeof auxv));
    auxv[3] = 0;
    ck_assert(!afx_auxv_secure(auxv, sizeof auxv));
    ck_assert(!afx_auxv_secure(auxv, 3));
}
END_TEST

/* xz's zeroed buffers end where a heap could and were counted as
 * arenas: a heap's header must be one glibc wrote. */
START_TEST(heap_headers)
{
    const unsigned long at = 0x7f0000000000UL, heap = AFX_HEAP_MAX;
    struct afx_heap_header glibc236 = { at + 48, 0, 0x21000, 0x21000 };
    struct afx_heap_header glibc234 = { at + 32, 0, 0x21000, 0x21000 };
    ck_assert(afx_heap_is_first(&glibc236, at, 0x21000));
    ck_assert(afx_heap_is_first(&glibc234, at, heap));
    struct afx_heap_header zero = { 0 };
    ck_assert(!afx_heap_is_first(&zero, at, heap));
    struct afx_heap_header h = glibc236;
    h.prev = at - heap;         /* a later heap of an arena */
    ck_assert(!afx_heap_is_first(&h, at, heap));
    h = glibc236;
    h.ar_ptr = at + 0x10000;    /* its arena far away: not a first heap */
    ck_assert(!afx_heap_is_first(&h, at, heap));
    h.ar_ptr = at - 48;
    ck_assert(!afx_heap_is_first(&h, at, heap));
    h = glibc236;
    h.size = 0x22000;           /* more in use than writable */
    ck_assert(!afx_heap_is_first(&h, at, heap));
    h = glibc236;
    ck_assert(!afx_heap_is_first(&h, at, 0x20000));     /* more writable than maps shows */
    h.size = 0x21001;
    ck_assert(!afx_heap_is_first(&h, at, heap));
    h = (struct afx_heap_header){ at + 48, 0, heap, 2 * heap };
    ck_assert(!afx_heap_is_first(&h, at, 2 * heap));
}
END_TEST

/* Under taskset or a cpuset, the free run is itself the proof. */
START_TEST(probe_judged_under_narrow_affinity)
{
    struct afx_probe p = { .online = 2, .threads = 12 };
    p.free_run = (struct afx_probe_run){ .arenas = 9, .sees = 1 };
    p.pinned_run = (struct afx_probe_run){ .arenas = 9, .sees = 1 };
    afx_probe_judge(&p);
    ck_assert_int_eq(p.verdict, AFX_AFFECTED);
    ck_assert_msg(strstr(p.reason, "allowed 1 of the 2 online CPUs got 9 arenas") != NULL, "%s", p.reason);
    /* A fixed glibc under the same affinity. */
    p.free_run.arenas = p.pinned_run.arenas = 13;
    afx_probe_judge(&p);
    ck_assert_int_eq(p.verdict, AFX_NOT_AFFECTED);
    /* Something else (not 8 per allowed CPU) limits them: cannot tell. */
    p.free_run.arenas = p.pinned_run.arenas = 5;
    afx_probe_judge(&p);
    ck_assert_int_eq(p.verdict, AFX_CANNOT_TELL);
    /* 4 of 64 CPUs allowed: 32 arenas is 8 x 4, the affinity's. */
    p = (struct afx_probe){ .online = 64, .threads = 40 };
    p.free_run = (struct afx_probe_run){ .arenas = 32, .sees = 4 };
    p.pinned_run = (struct afx_probe_run){ .arenas = 9, .sees = 1 };
    afx_probe_judge(&p);
    ck_assert_int_eq(p.verdict, AFX_AFFECTED);
    /* Every CPU allowed: the free run proves nothing by itself. */
    p.free_run.sees = 64;
    afx_probe_judge(&p);
    ck_assert_int_eq(p.verdict, AFX_CANNOT_TELL);
}
END_TEST

/* A host with one CPU online: pinned or not, every thread sees that
 * CPU, and the affected glibc's limit is the fixed one's.  The probe's
 * runs there show nothing either way: it cannot tell, never "not
 * affected" (exit 0, which a fleet script takes for a pass). */
START_TEST(probe_one_cpu_cannot_tell)
{
    struct afx_probe p = { .online = 1, .threads = afx_probe_threads() };
    int arenas = (int)afx_fixed_glibc_arenas(p.threads, 1);
    p.free_run = (struct afx_probe_run){ .arenas = arenas, .sees = 1 };
    p.pinned_run = (struct afx_probe_run){ .arenas = arenas, .sees = 1 };
    afx_probe_judge(&p);
    ck_assert_int_eq(p.verdict, AFX_CANNOT_TELL);
    ck_assert_msg(strstr(p.reason, "1 CPU online") != NULL, "%s", p.reason);
}
END_TEST

/* The advice fits what the process already runs with. */
START_TEST(advice_for_a_process_under_arenafix)
{
    char why[512];
    struct afx_process_facts f = { .threads = 31, .online = 2, .narrowed = 30, .arenas = 9,
                                   .glibc = AFX_GLIBC_AFFECTED };
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_HIT);
    ck_assert_msg(strstr(why, "restart it under arenafix") != NULL, "%s", why);
    f.arenafix = true;
    f.mode = AFX_MODE_TOUCH;
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_HIT);
    ck_assert_msg(strstr(why, "restart it under arenafix") == NULL, "%s", why);
    ck_assert_msg(strstr(why, "ARENAFIX_MODE=mallopt") != NULL, "%s", why);
    f.mode = AFX_MODE_OFF;
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_HIT);
    ck_assert_msg(strstr(why, "without that setting") != NULL, "%s", why);
    f.mode = AFX_MODE_MALLOPT;
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_HIT);
    ck_assert_msg(strstr(why, "ARENAFIX_EAGER=1") != NULL, "%s", why);
    f.arenafix_max = 9;         /* the user's own choice of limit */
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_FINE);
    /* Loaded but off, pinned, not hit yet: at risk, and why. */
    f = (struct afx_process_facts){ .threads = 5, .online = 2, .narrowed = 4, .arenas = 5,
                                    .arenafix = true, .mode = AFX_MODE_OFF };
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_AT_RISK);
    ck_assert_msg(strstr(why, "ARENAFIX_MODE=off") != NULL, "%s", why);
    f.mode = AFX_MODE_BOTH;
    ck_assert_int_eq(afx_judge_process(&f, why, sizeof why), AFX_FINE);
    ck_assert_msg(strstr(why, "mode both") != NULL, "%s", why);
}
END_TEST

/* dir (PATH_MAX bytes): a new directory for fuseserve to mount a user's
 * file system on, where the test can (root, /dev/fuse); else the SKIP
 * line and false.  The test removes it when done. */
static bool fuse_mount_dir(const char *test, char *dir)
{
    if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK) != 0) {
        printf("SKIP %s: needs root and /dev/fuse\n", test);
        return false;
    }
    snprintf(dir, PATH_MAX, "%s", test_prog("fusemnt.XXXXXX"));
    ck_assert_msg(mkdtemp(dir) != NULL, "%s", dir);
    return true;
}

/* A user's FUSE file system that answers its own program and never
 * anyone else (fuseserve, as nobody) serves the libc.so.6 of a hit
 * process: the scan, the metrics and inspect PID all finish, never
 * opening that file, and judge the process from /proc: 9 arenas where
 * 16 are allowed.  Before, each waited on the server for ever (the
 * timeout's SIGKILL, 137, is that hang). */
START_TEST(a_file_a_user_serves_holds_no_scan)
{
    const char *g = affected_glibc(__func__);
    if (g == NULL || skip_emulated(__func__, EMULATED_PROC))
        return;
    char dir[PATH_MAX], libc[PATH_MAX + 16], path[2 * PATH_MAX + 2], pid[32];
    if (!fuse_mount_dir(__func__, dir))
        return;
    snprintf(libc, sizeof libc, "%s/libc.so.6", g);
    snprintf(path, sizeof path, "%s:%s", dir, g);
    struct live l;
    live_start(&l, NULL, ARGV(test_prog("fuseserve"), dir, libc, "libc.so.6", affected_loader(g), "--library-path", path,
                              test_prog("arenawait"), "30", "pinned"));
    ck_assert_int_eq(l.arenas, 9);
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    struct run one, all, prom;
    run(&one, NULL, ARGV("timeout", "-s", "KILL", "100", cli(), "inspect", pid));
    run(&all, NULL, ARGV("timeout", "-s", "KILL", "100", cli(), "inspect", "--all"));
    run(&prom, NULL, ARGV("timeout", "-s", "KILL", "100", cli(), "inspect", "--all", "--prometheus"));
    live_stop(&l);
    rmdir(dir);
    ck_assert_status(&one, 3);
    ck_assert_msg(strstr(one.out, "not read: its libc is served by a user's FUSE file system") != NULL
                  && strstr(one.out, "arenas, counted:    9") != NULL && strstr(one.out, "\nverdict: hit") != NULL,
                  "%s", one.out);
    char row[64];
    snprintf(row, sizeof row, "\n%*s  hit ", 7, pid);
    ck_assert_status(&all, 3);
    ck_assert_msg(strstr(all.out, row) != NULL, "process %s is not listed hit: %s", pid, all.out);
    ck_assert_status(&prom, 3);
    ck_assert_msg(strstr(prom.out, "comm=\"ld-linux-x86-64\",verdict=\"hit\"} 1") != NULL, "%s", prom.out);
    run_free(&one);
    run_free(&all);
    run_free(&prom);
}
END_TEST

/* The same server runs a static program on Debian's 2.36-8 from its
 * file system (9 arenas): its executable, where its glibc is, is not
 * read, and the scan says why. */
START_TEST(a_program_a_user_serves_holds_no_scan)
{
    const char *st = test_prog("arenawait-static-affected");
    if (access(st, X_OK) != 0) {
        printf("SKIP %s: no %s (libc6-dev-amd64-cross on x86_64)\n", __func__, st);
        return;
    }
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    char dir[PATH_MAX], prog[PATH_MAX + 16], pid[32];
    if (!fuse_mount_dir(__func__, dir))
        return;
    snprintf(prog, sizeof prog, "%s/arenawait", dir);
    struct live l;
    live_start(&l, NULL, ARGV(test_prog("fuseserve"), dir, st, "arenawait", prog, "30", "pinned"));
    ck_assert_int_eq(l.arenas, 9);
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    struct run one, all;
    run(&one, NULL, ARGV("timeout", "-s", "KILL", "100", cli(), "inspect", pid));
    run(&all, NULL, ARGV("timeout", "-s", "KILL", "100", cli(), "inspect", "--all"));
    live_stop(&l);
    rmdir(dir);
    ck_assert_msg(WIFEXITED(one.status) && WIFEXITED(all.status), "inspect hung: %d %d", one.status, all.status);
    ck_assert_msg(strstr(one.out, "not read: its executable is served by a user's FUSE file system") != NULL
                  && strstr(one.out, "arenas, counted:    9") != NULL, "%s", one.out);
    char row[64];
    snprintf(row, sizeof row, "\n%*s  ", 7, pid);
    ck_assert_msg(strstr(all.out, row) != NULL, "process %s is not listed: %s", pid, all.out);
    run_free(&one);
    run_free(&all);
}
END_TEST

/* env_start of process pid (field 50 of its stat), 0 if unread. */
static unsigned long env_start_of(pid_t pid)
{
    char path[64], text[4096];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f != NULL ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    text[n] = '\0';
    char *p = strrchr(text, ')');
    for (int field = 2; field < 50 && p != NULL; field++)
        p = strchr(p + 1, ' ');
    return p != NULL ? strtoul(p + 1, NULL, 10) : 0;
}

/* A padding variable of some pages, so that whole pages of the
 * environment block hold nothing else (fusecover.c). */
static const char *env_padding(void)
{
    static char pad[5 * 4096];
    if (pad[0] == '\0') {
        memset(pad, 'x', sizeof pad - 1);
        memcpy(pad, "PAD=", 4);
    }
    return pad;
}

/* The same user's server: a process maps a file of it over pages of
 * its memory (its environment's, fusecover), as it could between the
 * scan's read of its maps and of its heap headers.  The reader of
 * /proc/PID/mem gives up on that page after its budget (ETIME), where a
 * pread of it waited for ever and, once the server had taken the
 * request, even SIGKILL did not end it; the anonymous page below is
 * read, by the same helper.  inspect PID, --all and --prometheus
 * finish with that process there (its environ, on those pages, is
 * read by the same helper). */
START_TEST(memory_a_user_serves_holds_no_read)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    char dir[PATH_MAX], file[PATH_MAX + 16], path[64], pid[32];
    if (!fuse_mount_dir(__func__, dir))
        return;
    snprintf(file, sizeof file, "%s/blob", dir);
    struct live l;
    const char *env[] = { env_padding(), NULL };
    live_start_env(&l, NULL, env, ARGV(test_prog("fuseserve"), dir, test_prog("fusecover"), "blob",
                                       test_prog("fusecover"), file));
    unsigned long start = env_start_of(l.pid), page = (unsigned long)sysconf(_SC_PAGESIZE);
    unsigned long at[2] = { start, (start + page - 1) & ~(page - 1) };
    unsigned long words[2 * AFX_MEM_WORDS];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)l.pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ck_assert_msg(fd >= 0 && start != 0, "%s: %s", path, strerror(errno));
    struct afx_deadline by;
    afx_deadline_in(&by, AFX_READ_SECONDS);
    long anon = afx_mem_read_words(fd, at, 1, words, &by);
    char environ_path[64], first[sizeof words / 2];
    snprintf(environ_path, sizeof environ_path, "/proc/%d/environ", (int)l.pid);
    FILE *e = fopen(environ_path, "r");
    ck_assert(e != NULL && fread(first, 1, sizeof first, e) == sizeof first);
    fclose(e);
    ck_assert_msg(anon == 1 && memcmp(words, first, sizeof first) == 0, "read %ld of its environment's first page",
                  anon);
    afx_deadline_in(&by, AFX_READ_SECONDS);
    errno = 0;
    long served = afx_mem_read_words(fd, at, 2, words, &by);
    int err = errno;
    close(fd);
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    struct run one, all, prom;
    run(&one, NULL, ARGV("timeout", "-s", "KILL", "100", cli(), "inspect", pid));
    run(&all, NULL, ARGV("timeout", "-s", "KILL", "100", cli(), "inspect", "--all", "--json"));
    run(&prom, NULL, ARGV("timeout", "-s", "KILL", "100", cli(), "inspect", "--all", "--prometheus"));
    live_stop(&l);
    rmdir(dir);
    ck_assert_msg(served == -1 && err == ETIME, "a page a user serves: %ld read, errno %d", served, err);
    ck_assert_msg(WIFEXITED(one.status) && WIFEXITED(all.status) && WIFEXITED(prom.status),
                  "inspect hung: %#x %#x %#x", one.status, all.status, prom.status);
    char key[64];
    snprintf(key, sizeof key, "\"pid\":%s,", pid);
    ck_assert_msg(strstr(one.out, "fusecover") != NULL && strstr(all.out, key) != NULL, "%s\n%s", one.out, all.out);
    run_free(&one);
    run_free(&all);
    run_free(&prom);
}
END_TEST

/* A process remaps a file of the user's server over its heap's header
 * after inspect read its maps (fusecover heap, told to by gdb, which
 * holds inspect at afx_count_target_arenas for that process until the
 * maps show it).  inspect's clock stands still (stillclock.so: its
 * deadline never passes, nor can a stopped clock make it wait for
 * ever); gdb stops for that process alone.  inspect PID, --all and
 * --prometheus (a process each: the reader left asleep holds its memory
 * map) each count it "cannot tell", having not read that memory, and
 * finish.  Before, their pread waited on the server for ever. */
START_TEST(memory_remapped_after_maps_holds_no_read)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    if (access("/usr/bin/gdb", X_OK) != 0) {
        printf("SKIP %s: needs gdb\n", __func__);
        return;
    }
    char dir[PATH_MAX], file[PATH_MAX + 16], pid[3][32], preload[PATH_MAX + 32], cover[PATH_MAX + 160], stop[256];
    if (!fuse_mount_dir(__func__, dir))
        return;
    snprintf(file, sizeof file, "%s/blob", dir);
    snprintf(preload, sizeof preload, "set environment LD_PRELOAD=%s", test_prog("stillclock.so"));
    struct run r[3];
    for (int i = 0; i < 3; i++) {
        const char *const modes[3][3] = { { pid[i], NULL }, { "--all", NULL }, { "--all", "--prometheus", NULL } };
        struct live l;
        live_start(&l, NULL, ARGV(test_prog("fuseserve"), dir, test_prog("fusecover"), "blob",
                                  test_prog("fusecover"), file, "heap"));
        snprintf(pid[i], sizeof pid[i], "%d", (int)l.pid);
        snprintf(stop, sizeof stop, "break afx_count_target_arenas if $_streq(dir, \"/proc/%s\")", pid[i]);
        snprintf(cover, sizeof cover,
                 "shell echo cover >/proc/%s/fd/0; until grep -q /blob /proc/%s/maps; do sleep 0.1; done", pid[i],
                 pid[i]);
        run(&r[i], NULL, ARGV("timeout", "-s", "KILL", "100", "gdb", "-batch", "-nx", "-ex", preload, "-ex", stop,
                              "-ex", "run", "-ex", cover, "-ex", "continue", "--args", cli(), "inspect",
                              "--no-probe", modes[i][0], modes[i][1]));
        live_stop(&l);
    }
    rmdir(dir);
    for (int i = 0; i < 3; i++)
        ck_assert_msg(WIFEXITED(r[i].status), "inspect (%d of 3) hung: %#x", i + 1, r[i].status);
    char note[128], row[64], series[64];
    snprintf(note, sizeof note, "verdict: cannot tell: reading /proc/%s/mem took longer than 2 s", pid[0]);
    snprintf(row, sizeof row, "\n%*s  cannot tell ", 7, pid[1]);
    snprintf(series, sizeof series, "\narenafix_processes{verdict=\"cannot_tell\"} ");
    ck_assert_msg(strstr(r[0].out, note) != NULL, "%s\n%s", r[0].out, r[0].err);
    ck_assert_msg(strstr(r[1].out, row) != NULL, "process %s is not listed cannot tell: %s", pid[1], r[1].out);
    const char *counted = strstr(r[2].out, series);
    ck_assert_msg(counted != NULL && atol(counted + strlen(series)) >= 1, "%s", r[2].out);
    for (int i = 0; i < 3; i++)
        run_free(&r[i]);
}
END_TEST

/* A process holds its own memory map locked (fusecover lock: a read of
 * one of its pages a user's server never answers, with the map's lock
 * taken across it, and a thread of its own queued for that lock).  The
 * kernel takes that lock to read its environ and cmdline (and its maps,
 * before 6.17): inspect PID, --all --json and --prometheus report it
 * "cannot tell" and finish, the helper that read it left asleep.
 * Before, each waited on the server for ever (137). */
START_TEST(memory_map_a_user_holds_holds_no_read)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    char dir[PATH_MAX], file[PATH_MAX + 16], pid[32];
    if (!fuse_mount_dir(__func__, dir))
        return;
    snprintf(file, sizeof file, "%s/blob", dir);
    struct live l;
    live_start(&l, NULL, ARGV(test_prog("fuseserve"), dir, test_prog("fusecover"), "blob", test_prog("fusecover"),
                              file, "lock"));
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    /* At once: each waits out its reader's budget on the same lock. */
    struct run one, all, prom;
    run_start(&one, NULL, ARGV("timeout", "-s", "KILL", "100", cli(), "inspect", pid));
    run_start(&all, NULL, ARGV("timeout", "-s", "KILL", "100", cli(), "inspect", "--all", "--json"));
    run_start(&prom, NULL, ARGV("timeout", "-s", "KILL", "100", cli(), "inspect", "--all", "--prometheus"));
    run_wait(&one);
    run_wait(&all);
    run_wait(&prom);
    live_stop(&l);
    rmdir(dir);
    ck_assert_msg(WIFEXITED(one.status) && WIFEXITED(all.status) && WIFEXITED(prom.status),
                  "inspect hung: %#x %#x %#x", one.status, all.status, prom.status);
    char note[128], key[64], series[64];
    snprintf(note, sizeof note, "verdict: cannot tell: reading /proc/%s/", pid);
    snprintf(key, sizeof key, "\"pid\":%s,", pid);
    snprintf(series, sizeof series, "\narenafix_processes{verdict=\"cannot_tell\"} ");
    ck_assert_msg(strstr(one.out, note) != NULL, "%s\n%s", one.out, one.err);
    /* Its object: from the brace before its pid, the verdict first. */
    const char *row = strstr(all.out, key), *open = row;
    while (open != NULL && open > all.out && *open != '{')
        open--;
    const char *verdict = open != NULL ? strstr(open, "\"verdict\":\"cannot tell\"") : NULL;
    ck_assert_msg(verdict != NULL && verdict < row, "process %s is not listed cannot tell: %s", pid, all.out);
    const char *counted = strstr(prom.out, series);
    ck_assert_msg(counted != NULL && atol(counted + strlen(series)) >= 1, "%s", prom.out);
    run_free(&one);
    run_free(&all);
    run_free(&prom);
}
END_TEST

/* Its pages registered with a userfaultfd it never answers (fusecover
 * uffd, as root: the host may deny users one): a read from another
 * process fails at once rather than wait, and the scan finishes. */
START_TEST(memory_a_userfaultfd_holds_no_read)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    if (geteuid() != 0) {
        printf("SKIP %s: needs root\n", __func__);
        return;
    }
    char pid[32];
    struct live l;
    const char *env[] = { env_padding(), NULL };
    live_start_env(&l, NULL, env, ARGV(test_prog("fusecover"), "uffd"));
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    struct run one, all;
    run(&one, NULL, ARGV("timeout", "-s", "KILL", "100", cli(), "inspect", pid));
    run(&all, NULL, ARGV("timeout", "-s", "KILL", "100", cli(), "inspect", "--all", "--json"));
    live_stop(&l);
    ck_assert_msg(WIFEXITED(one.status) && WIFEXITED(all.status), "inspect hung: %#x %#x", one.status, all.status);
    char key[64];
    snprintf(key, sizeof key, "\"pid\":%s,", pid);
    ck_assert_msg(strstr(one.out, "fusecover") != NULL && strstr(all.out, key) != NULL, "%s\n%s", one.out, all.out);
    run_free(&one);
    run_free(&all);
}
END_TEST

/* The libc of a hit process is the kernel's file (the affected glibc,
 * mounted over a name in the user's file system: fuseserve --bind), at
 * a path through the user's directory.  The probe's trust walk, which
 * looked up and stat'ed each directory, stops at that one and says why:
 * nothing of it is run, and inspect PID finishes.  Before, it waited on
 * the server for ever (137). */
START_TEST(a_directory_a_user_serves_holds_no_probe)
{
    const char *g = affected_glibc(__func__);
    if (g == NULL || skip_emulated(__func__, EMULATED_PROC))
        return;
    char dir[PATH_MAX], libc[PATH_MAX + 16], path[2 * PATH_MAX + 2], pid[32];
    if (!fuse_mount_dir(__func__, dir))
        return;
    snprintf(libc, sizeof libc, "%s/libc.so.6", g);
    snprintf(path, sizeof path, "%s:%s", dir, g);
    struct live l;
    live_start(&l, NULL, ARGV(test_prog("fuseserve"), "--bind", dir, libc, "libc.so.6", affected_loader(g),
                              "--library-path", path, test_prog("arenawait"), "30", "pinned"));
    ck_assert_int_eq(l.arenas, 9);
    /* Past the attributes' and names' second of validity: the walk's
     * stat and lookup go to the server. */
    sleep(2);
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    struct run one;
    run(&one, NULL, ARGV("timeout", "-s", "KILL", "100", cli(), "inspect", pid));
    live_stop(&l);
    rmdir(dir);
    ck_assert_status(&one, 3);
    char note[PATH_MAX + 64];
    snprintf(note, sizeof note, "%s is served by a user's FUSE file system", dir);
    ck_assert_msg(strstr(one.out, note) != NULL && strstr(one.out, "arenas, counted:    9") != NULL, "%s", one.out);
    run_free(&one);
}
END_TEST

/* "sh -c CMD" ran and exited 0; else its output into why. */
static bool shell(const char *cmd, char *why, size_t size)
{
    struct run r;
    run(&r, NULL, ARGV("sh", "-c", cmd));
    bool ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
    if (!ok && why[0] == '\0')
        snprintf(why, size, "%s: status 0x%x: %s%s", cmd, r.status, r.out, r.err);
    run_free(&r);
    return ok;
}

/* The device maps shows for the first mapping of path in process pid. */
static bool maps_dev(pid_t pid, const char *path, unsigned *major, unsigned *minor)
{
    char file[64], line[2 * PATH_MAX];
    snprintf(file, sizeof file, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(file, "r");
    bool found = false;
    while (f != NULL && !found && fgets(line, sizeof line, f) != NULL) {
        char *name = strchr(line, '/');
        if (name != NULL && strncmp(name, path, strlen(path)) == 0 && name[strlen(path)] == '\n')
            found = sscanf(line, "%*s %*s %*s %x:%x", major, minor) == 2;
    }
    if (f != NULL)
        fclose(f);
    return found;
}

/* A program and its glibc on a btrfs subvolume (Fedora's root): stat
 * shows the subvolume's own anonymous device, which neither maps nor
 * mountinfo lists.  inspect finds the file system by the file's mount
 * and reads its glibc as on ext4: 2.36, affected as probed, 9 arenas.
 * Before, its libc was "on a file system mounted nowhere inspect sees"
 * and left unread, and the probe's walk refused every directory.  Root
 * without map_files reads it by its path, the same file. */
START_TEST(a_btrfs_subvolume_is_read_as_any_disk)
{
    const char *g = affected_glibc(__func__);
    if (g == NULL || skip_emulated(__func__, EMULATED_PROC))
        return;
    struct run tool;
    run(&tool, NULL, ARGV("sh", "-c", "command -v mkfs.btrfs && command -v btrfs && command -v losetup"));
    bool tools = WIFEXITED(tool.status) && WEXITSTATUS(tool.status) == 0;
    run_free(&tool);
    if (geteuid() != 0 || !tools) {
        printf("SKIP %s: needs root, mkfs.btrfs and btrfs (btrfs-progs) and losetup\n", __func__);
        return;
    }
    char dir[PATH_MAX], cmd[8 * PATH_MAX], why[4 * PATH_MAX] = "", loop[64] = "", sub[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s", test_prog("btrfs.XXXXXX"));
    ck_assert_msg(mkdtemp(dir) != NULL, "%s", dir);
    snprintf(sub, sizeof sub, "%s/mnt/sub", dir);
    snprintf(cmd, sizeof cmd,
             "truncate -s 120M '%s/img' && mkfs.btrfs -q '%s/img' >/dev/null && losetup -f --show '%s/img'", dir,
             dir, dir);
    struct run lo;
    run(&lo, NULL, ARGV("sh", "-c", cmd));
    if (WIFEXITED(lo.status) && WEXITSTATUS(lo.status) == 0)
        sscanf(lo.out, "%63s", loop);
    run_free(&lo);
    bool mounted = false;
    if (loop[0] != '\0') {
        snprintf(cmd, sizeof cmd, "mkdir '%s/mnt' && mount -t btrfs '%s' '%s/mnt'", dir, loop, dir);
        mounted = shell(cmd, why, sizeof why);
    }
    if (!mounted) {
        if (loop[0] != '\0') {
            snprintf(cmd, sizeof cmd, "losetup -d '%s'", loop);
            shell(cmd, why, sizeof why);
        }
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        shell(cmd, why, sizeof why);
        printf("SKIP %s: no btrfs on a loop device here (%s)\n", __func__, loop[0] == '\0' ? "losetup failed" : why);
        return;
    }
    snprintf(cmd, sizeof cmd,
             "btrfs -q subvolume create '%s' && mkdir '%s/lib' && cp -a '%s/.' '%s/lib/' && cp '%s' '%s/'", sub, sub,
             g, sub, test_prog("arenawait"), sub);
    bool made = shell(cmd, why, sizeof why);
    struct live l = { .pid = -1 };
    struct run one = { 0 }, path = { 0 };
    struct stat st = { 0 };
    unsigned major = 0, minor = 0;
    char libc[PATH_MAX + 64], loader[PATH_MAX + 64], libdir[PATH_MAX + 64], prog[PATH_MAX + 64], pid[32];
    snprintf(libc, sizeof libc, "%s/lib/libc.so.6", sub);
    snprintf(loader, sizeof loader, "%s/lib/%s", sub, strrchr(affected_loader(g), '/') + 1);
    snprintf(libdir, sizeof libdir, "%s/lib", sub);
    snprintf(prog, sizeof prog, "%s/arenawait", sub);
    bool seen = false;
    if (made) {
        live_start(&l, NULL, ARGV(loader, "--library-path", libdir, prog, "30", "pinned"));
        seen = maps_dev(l.pid, libc, &major, &minor) && stat(libc, &st) == 0;
        snprintf(pid, sizeof pid, "%d", (int)l.pid);
        run(&one, NULL, ARGV("timeout", "-s", "KILL", "100", cli(), "inspect", pid));
        /* Without CAP_SYS_ADMIN and CAP_CHECKPOINT_RESTORE map_files is
         * closed: each file is reached by its path, and must be the very
         * one mapped (maps' device, the mount's, not stat's). */
        run(&path, NULL, ARGV("timeout", "-s", "KILL", "100", "setpriv",
                              "--bounding-set=-sys_admin,-checkpoint_restore", cli(), "inspect", pid));
        live_stop(&l);
    }
    snprintf(cmd, sizeof cmd, "umount '%s/mnt' && losetup -d '%s' && rm -rf '%s'", dir, loop, dir);
    bool clean = shell(cmd, why, sizeof why);
    ck_assert_msg(made && clean, "%s", why);
    ck_assert_int_eq(l.arenas, 9);
    /* What the test is about: stat's device is not the one maps shows. */
    ck_assert_msg(seen && (major != major(st.st_dev) || minor != minor(st.st_dev)),
                  "maps %u:%u, stat %u:%u: not btrfs's subvolume device", major, minor, major(st.st_dev),
                  minor(st.st_dev));
    ck_assert_status(&one, 3);
    ck_assert_msg(strstr(one.out, "\n  glibc:              2.36, affected (probed as the process") != NULL
                      && strstr(one.out, "arenas, counted:    9") != NULL && strstr(one.out, "\nverdict: hit") != NULL
                      && strstr(one.out, "mounted nowhere") == NULL,
                  "%s", one.out);
    run_free(&one);
    ck_assert_status(&path, 3);
    /* Its version read (the probe needs CAP_SYS_ADMIN, dropped here). */
    ck_assert_msg(strstr(path.out, "\n  glibc:              2.36, ") != NULL && strstr(path.out, "not read") == NULL
                      && strstr(path.out, "arenas, counted:    9") != NULL,
                  "%s", path.out);
    run_free(&path);
}
END_TEST

Suite *hostile_suite(void)
{
    Suite *s = suite_create("hostile input");
    TCase *tc = tcase_create("readers");
    tcase_add_test(tc, escape_for_the_terminal);
    tcase_add_test(tc, printable_as_named_or_escaped_whole);
    tcase_add_test(tc, json_is_ascii_and_valid_whatever_the_bytes);
    tcase_add_test(tc, library_names_are_exact);
    tcase_add_test(tc, maps_only_code_is_a_library);
    tcase_add_test(tc, maps_lines_are_strict);
    tcase_add_test(tc, maps_in_pieces);
    tcase_add_test(tc, maps_paths_as_long_as_the_buffers);
    tcase_add_test(tc, maps_more_heaps_than_the_table);
    tcase_add_test(tc, maps_long_line_in_two_pieces);
    tcase_add_test(tc, status_credentials);
    tcase_add_test(tc, environment_as_the_library_reads_it);
    tcase_add_test(tc, heap_headers);
    tcase_add_test(tc, probe_judged_under_narrow_affinity);
    tcase_add_test(tc, probe_one_cpu_cannot_tell);
    tcase_add_test(tc, advice_for_a_process_under_arenafix);
    suite_add_tcase(s, tc);
    return s;
}

/* Most of these wait out a reader's budget (main.c runs the suite
 * beside the others). */
Suite *served_suite(void)
{
    Suite *s = suite_create("user-served files");
    /* A live process, and a hang caught by timeout(1) at 100 s. */
    TCase *served = tcase_create("user-served files");
    tcase_add_test(served, a_file_a_user_serves_holds_no_scan);
    tcase_add_test(served, a_program_a_user_serves_holds_no_scan);
    tcase_add_test(served, memory_a_user_serves_holds_no_read);
    tcase_add_test(served, memory_a_userfaultfd_holds_no_read);
    tcase_add_test(served, memory_map_a_user_holds_holds_no_read);
    tcase_add_test(served, a_directory_a_user_serves_holds_no_probe);
    tcase_add_test(served, a_btrfs_subvolume_is_read_as_any_disk);
    tcase_set_timeout(served, 360);
    suite_add_tcase(s, served);
    return s;
}

/* Its three runs wait out a reader's budget each, one after another: at
 * once, the two that scan the whole host could count each other's
 * process, and --prometheus, which counts without naming, would no
 * longer show that it counted its own. */
Suite *remapped_suite(void)
{
    Suite *s = suite_create("memory remapped");
    TCase *tc = tcase_create("memory remapped");
    tcase_add_test(tc, memory_remapped_after_maps_holds_no_read);
    tcase_set_timeout(tc, 360);
    suite_add_tcase(s, tc);
    return s;
}
