/* libFuzzer target: arenafix's own variables (config.c) and the decision
 * built on them (policy.c).
 *
 * The input is cut at NUL bytes into the four ARENAFIX_* values; the
 * rest of the facts come from the input's last bytes.  Whatever the
 * values, the settings stay in range, a bad variable is named, and the
 * explanation fits the buffer it is given. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    /* Up to four NUL-separated values; a missing one is unset. */
    const char *values[AFX_VAR_COUNT] = { 0 };
    char *p = text;
    for (int v = 0; v < AFX_VAR_COUNT && p <= text + size; v++) {
        values[v] = p;
        p += strlen(p) + 1;
    }

    struct afx_config cfg;
    int bad = afx_config_parse(&cfg, values);
    if (bad < -1 || bad >= AFX_VAR_COUNT)
        abort();
    if (bad >= 0 && (values[bad] == NULL || values[bad][0] == '\0'))
        abort();    /* unset and empty are never "malformed" */
    if ((unsigned)cfg.mode > AFX_MODE_OFF || cfg.arena_max < 0
        || cfg.arena_max > AFX_ARENA_MAX_LIMIT)
        abort();
    /* Parsing is a function of the values alone. */
    struct afx_config again;
    if (afx_config_parse(&again, values) != bad || again.mode != cfg.mode
        || again.arena_max != cfg.arena_max || again.verbose != cfg.verbose
        || again.eager != cfg.eager)
        abort();

    uint8_t k[8] = { 0 };
    memcpy(k, data + (size > 8 ? size - 8 : 0), size < 8 ? size : 8);
    struct afx_facts f = {
        .cfg = cfg,
        .secure = k[0] & 1,
        .user.arena_max_from = (enum afx_origin)(k[0] >> 1 & 3) % 3,
        .user.arena_max = k[1] * 1000003UL,
        .user.arena_test_from = (enum afx_origin)(k[0] >> 6) % 3,
        .user.arena_test = k[2] * 100003UL,
        .program_arena_max = k[0] & 8 ? (int8_t)k[3] : 0,
        .program_arena_test = k[7] & 1 ? (int8_t)k[4] : 0,
        .foreign_malloc = k[0] & 16 ? "/usr/lib/libjemalloc.so.2" : NULL,
        .arenas = (long)(int8_t)k[4],
        .thread_cpus = (long)(int8_t)k[3],
        .narrowing_seen = k[7] & 2,
        .online = (long)(int16_t)(k[5] | k[6] << 8),
        .online_source = k[0] & 32 ? NULL : "/sys/devices/system/cpu/online",
    };
    char why[400];
    size_t room = k[7] % sizeof why + 1;
    memset(why, 'x', sizeof why);
    struct afx_decision d = afx_decide(&f, why, room);
    if (memchr(why, '\0', room) == NULL || (room < sizeof why && why[room] != 'x'))
        abort();    /* unterminated, or written past the room it was given */
    if (d.set_arena_max && (d.arena_max < 1 || d.arena_max > AFX_ARENA_MAX_LIMIT * 8L + 1))
        abort();
    if ((d.set_arena_max || d.touch) && cfg.mode == AFX_MODE_OFF)
        abort();
    free(text);
    return 0;
}
