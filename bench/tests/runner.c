/* The runner's pure parts: scenario environments, the result line, the
 * cpulists a child pins by. */
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "pin.h"
#include "runner.h"
#include "tests.h"

START_TEST(shim_scenarios_append_the_preload)
{
    char *envp[] = { "HOME=/h", "LD_PRELOAD=/a/libjemalloc.so.2 /old/libarenafix.so", NULL };
    char **env = afb_env_build(envp, AFB_S_SHIM_TOUCH, "/new/libarenafix.so", 16);
    ck_assert_str_eq(afb_env_get(env, "LD_PRELOAD"), "/a/libjemalloc.so.2:/new/libarenafix.so");
    ck_assert_str_eq(afb_env_get(env, "ARENAFIX_MODE"), "touch");
    ck_assert_str_eq(afb_env_get(env, "HOME"), "/h");
    ck_assert_ptr_null(afb_env_get(env, "GLIBC_TUNABLES"));
    afb_env_free(env);
}
END_TEST

START_TEST(baselines_drop_a_host_wide_shim)
{
    char *envp[] = { "LD_PRELOAD=/usr/lib/arenafix/libarenafix.so", "ARENAFIX_MODE=both", NULL };
    char **env = afb_env_build(envp, AFB_S_PINNED, "/new/libarenafix.so", 16);
    ck_assert_ptr_null(afb_env_get(env, "LD_PRELOAD"));
    ck_assert_ptr_null(afb_env_get(env, "ARENAFIX_MODE"));
    afb_env_free(env);
}
END_TEST

START_TEST(tunable_adds_to_the_users_tunables)
{
    char *envp[] = { "GLIBC_TUNABLES=glibc.malloc.tcache_count=0", NULL };
    char **env = afb_env_build(envp, AFB_S_TUNABLE, NULL, 16);
    ck_assert_str_eq(afb_env_get(env, "GLIBC_TUNABLES"),
                     "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=16");
    afb_env_free(env);
    char *bare[] = { NULL };
    env = afb_env_build(bare, AFB_S_TUNABLE, NULL, 512);
    ck_assert_str_eq(afb_env_get(env, "GLIBC_TUNABLES"), "glibc.malloc.arena_max=512");
    afb_env_free(env);
    env = afb_env_build(envp, AFB_S_UNPINNED, NULL, 16);
    ck_assert_str_eq(afb_env_get(env, "GLIBC_TUNABLES"), "glibc.malloc.tcache_count=0");
    afb_env_free(env);
}
END_TEST

START_TEST(result_line_round_trips)
{
    struct afb_metrics m = { 1.5, 2e9, 0.25, 16, 3.5, 1234, 4096 }, back;
    char line[512];
    afb_result_format(&m, line, sizeof line);
    ck_assert_int_eq(afb_result_parse(line, &back), 0);
    ck_assert(memcmp(&m, &back, sizeof m) == 0);
    ck_assert_int_eq(afb_result_parse("afb-result wall_ms=1", &back), -1);
    ck_assert_int_eq(afb_result_parse("nr_cpu: 4", &back), -1);
}
END_TEST

START_TEST(cpulists)
{
    cpu_set_t set, slots[4];
    ck_assert_int_eq(afb_cpulist_parse("0-3,8", &set), 0);
    ck_assert_int_eq(CPU_COUNT(&set), 5);
    ck_assert(CPU_ISSET(8, &set) && !CPU_ISSET(4, &set));
    ck_assert_int_eq(afb_cpulist_parse("", &set), -1);
    ck_assert_int_eq(afb_cpulist_parse("3-1", &set), -1);
    ck_assert_int_eq(afb_cpulist_parse("1,", &set), -1);
    ck_assert_int_eq(afb_slots_parse("0/32/1-2", slots, 4), 3);
    ck_assert(CPU_ISSET(32, &slots[1]) && CPU_COUNT(&slots[2]) == 2);
    ck_assert_int_eq(afb_slots_parse("0/1/2/3/4", slots, 4), -1);
    ck_assert_int_eq(afb_slots_parse("0//1", slots, 4), -1);
}
END_TEST

Suite *runner_suite(void)
{
    Suite *s = suite_create("runner");
    TCase *tc = tcase_create("pure");
    tcase_add_test(tc, shim_scenarios_append_the_preload);
    tcase_add_test(tc, baselines_drop_a_host_wide_shim);
    tcase_add_test(tc, tunable_adds_to_the_users_tunables);
    tcase_add_test(tc, result_line_round_trips);
    tcase_add_test(tc, cpulists);
    suite_add_tcase(s, tc);
    return s;
}
