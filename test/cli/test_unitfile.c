/* The unit-file reader (cli/enable/unitfile.c) and the library path check
 * (cli/preload.c), as pure functions.  The expected values are what
 * systemd 252 gives (test_enable.c asks systemd itself where it can). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "preload.h"
#include "enable/unitfile.h"

struct env_case {
    const char *text;
    size_t len;         /* 0: strlen(text) */
    int state;          /* enum afx_env_state, or -1: systemd refuses the file */
    const char *value;
};

#define S "[Service]\n"

static const struct env_case env_cases[] = {
    { S "Environment=LD_PRELOAD=/a.so", 0, AFX_ENV_SET, "/a.so" },
    { S "Environment = LD_PRELOAD=/a.so  ", 0, AFX_ENV_SET, "/a.so" },
    { "  [Service]  \r\n\tEnvironment\t=\tA=1 LD_PRELOAD=/a.so\r\n", 0, AFX_ENV_SET, "/a.so" },
    { "\xef\xbb\xbf[Service]\nEnvironment=LD_PRELOAD=/a.so", 0, AFX_ENV_SET, "/a.so" },
    /* Continuations: a comment inside is skipped, an empty line ends one. */
    { S "Environment=A=1 \\\n LD_PRELOAD=/b.so", 0, AFX_ENV_SET, "/b.so" },
    { S "Environment=A=1 \\\n# note\n; note\n LD_PRELOAD=/b.so", 0, AFX_ENV_SET, "/b.so" },
    { S "Environment=A=1 \\\n\n LD_PRELOAD=/b.so", 0, AFX_ENV_UNSET, NULL },
    { S "Environment=A=1 \\\\\n LD_PRELOAD=/b.so", 0, AFX_ENV_UNSET, NULL },
    { S "Environment=LD_PRELOAD=/a.so \\", 0, AFX_ENV_SET, "/a.so" },
    /* Quotes anywhere in a word, escapes inside and outside them. */
    { S "Environment=\"LD_PRELOAD=/a b.so\"", 0, AFX_ENV_SET, "/a b.so" },
    { S "Environment=LD_PRELOAD=\"/a\"'b'c", 0, AFX_ENV_SET, "/abc" },
    { S "Environment='LD_PRELOAD=/a\\'s.so'", 0, AFX_ENV_SET, "/a's.so" },
    { S "Environment=LD_PRELOAD=\\x2fa\\s\\057b\\u00e9", 0, AFX_ENV_SET, "/a /b\xc3\xa9" },
    { S "Environment=LD_PRELOAD=\\xff", 0, AFX_ENV_UNSET, NULL },     /* not UTF-8: ignored */
    { S "Environment=LD_PRELOAD=\\x00", 0, AFX_ENV_UNSET, NULL },     /* bad syntax: line ignored */
    { S "Environment=LD_PRELOAD=/a.so \"open", 0, AFX_ENV_SET, "/a.so" },
    { S "Environment=\"open LD_PRELOAD=/a.so", 0, AFX_ENV_UNSET, NULL },
    { S "Environment=LD_PRELOAD=/a.so \\q LD_PRELOAD=/b.so", 0, AFX_ENV_SET, "/a.so" },
    { S "Environment=LD_PRELOAD", 0, AFX_ENV_UNSET, NULL },
    { S "Environment=LD_PRELOAD=", 0, AFX_ENV_SET, "" },
    /* The last assignment wins; an empty Environment= clears all. */
    { S "Environment=LD_PRELOAD=/a.so LD_PRELOAD=/b.so", 0, AFX_ENV_SET, "/b.so" },
    { S "Environment=LD_PRELOAD=/a.so\nEnvironment=", 0, AFX_ENV_UNSET, NULL },
    { S "Environment=LD_PRELOAD=/a.so\nEnvironment=  ", 0, AFX_ENV_UNSET, NULL },
    /* Specifiers: %% is %, others only systemd knows. */
    { S "Environment=LD_PRELOAD=/100%%.so", 0, AFX_ENV_SET, "/100%.so" },
    { S "Environment=LD_PRELOAD=/a%", 0, AFX_ENV_SET, "/a%" },
    { S "Environment=LD_PRELOAD=%h/a.so", 0, AFX_ENV_UNSURE, NULL },
    { S "Environment=LD_PRELOAD=\\x25h/a.so", 0, AFX_ENV_UNSURE, NULL },
    { S "Environment=%i=/a.so", 0, AFX_ENV_UNSURE, NULL },
    { S "Environment=LD_PRELOAD=%h/a.so\nEnvironment=LD_PRELOAD=/b.so", 0, AFX_ENV_SET, "/b.so" },
    { S "Environment=A=%h LD_PRELOAD=/b.so", 0, AFX_ENV_SET, "/b.so" },
    /* Only [Service], only this key, exactly. */
    { "[Unit]\nEnvironment=LD_PRELOAD=/a.so", 0, AFX_ENV_UNSET, NULL },
    { "Environment=LD_PRELOAD=/a.so", 0, AFX_ENV_UNSET, NULL },
    { "[service]\nEnvironment=LD_PRELOAD=/a.so", 0, AFX_ENV_UNSET, NULL },
    { S "[X-Other]\nEnvironment=LD_PRELOAD=/a.so", 0, AFX_ENV_UNSET, NULL },
    { S "environment=LD_PRELOAD=/a.so", 0, AFX_ENV_UNSET, NULL },
    { S "#Environment=LD_PRELOAD=/a.so", 0, AFX_ENV_UNSET, NULL },
    { S "\xef\xbb\xbf#Environment=LD_PRELOAD=/a.so", 0, AFX_ENV_UNSET, NULL },
    { S "=LD_PRELOAD=/a.so\nEnvironmentLD_PRELOAD", 0, AFX_ENV_UNSET, NULL },
    /* Line ends: \n, \r, "\r\n", "\n\r" and NUL each end a line. */
    { S "Environment=LD_PRELOAD=/a.so\rEnvironment=LD_PRELOAD=/b.so", 0, AFX_ENV_SET, "/b.so" },
    { S "Environment=LD_PRELOAD=/a.so\0Environment=LD_PRELOAD=/b.so",
      sizeof(S "Environment=LD_PRELOAD=/a.so\0Environment=LD_PRELOAD=/b.so") - 1, AFX_ENV_SET, "/b.so" },
    /* What makes systemd refuse the whole unit. */
    { "[Service\nEnvironment=LD_PRELOAD=/a.so", 0, -1, NULL },
    { "[Service] # comment\n", 0, -1, NULL },
    { "[Serv\"ice]\n", 0, -1, NULL },
    { S "Environment=A=\xff", 0, -1, NULL },
};

START_TEST(environment_as_systemd_reads_it)
{
    const struct env_case *c = &env_cases[_i];
    struct afx_unit_env e;
    afx_unit_env_init(&e);
    afx_unit_env_apply(&e, c->text, c->len ? c->len : strlen(c->text), "test.service");
    if (c->state < 0) {
        ck_assert_msg(e.broken[0] != '\0', "case %d: want a refused file", _i);
    } else {
        ck_assert_msg(e.broken[0] == '\0', "case %d: %s", _i, e.broken);
        ck_assert_msg((int)e.state == c->state, "case %d: state %d, want %d (%s)", _i, e.state, c->state, e.unsure);
        if (c->value != NULL)
            ck_assert_msg(strcmp(e.preload, c->value) == 0, "case %d: '%s', want '%s'", _i, e.preload, c->value);
        if (c->state == AFX_ENV_UNSURE)
            ck_assert_msg(strstr(e.unsure, "test.service line 2") != NULL, "case %d: %s", _i, e.unsure);
    }
    afx_unit_env_free(&e);
}
END_TEST

START_TEST(other_settings)
{
    struct afx_unit_env e;
    afx_unit_env_init(&e);
    const char *text = S "EnvironmentFile=-/etc/default/x\nUnsetEnvironment=A LD_PRELOAD\n";
    afx_unit_env_apply(&e, text, strlen(text), "t");
    ck_assert(e.environment_files && e.unsets_preload);
    text = S "EnvironmentFile=\nUnsetEnvironment=\n";
    afx_unit_env_apply(&e, text, strlen(text), "t");
    ck_assert(!e.environment_files && !e.unsets_preload);
    text = S "UnsetEnvironment=LD_PRELOAD=/a.so\n";
    afx_unit_env_apply(&e, text, strlen(text), "t");
    ck_assert(e.unsets_preload);
    afx_unit_env_free(&e);
}
END_TEST

/* Whatever the value, the drop-in gives systemd exactly that value. */
START_TEST(dropin_round_trip)
{
    static const char *const values[] = {
        "/usr/$LIB/arenafix/libarenafix.so", "/a b.so:/c.so", "/q\"uote\\back%h%%.so", "/tab\there\nnew\x01\x7f",
        "/caf\xc3\xa9.so", " lead and trail ", "#;[x]=y",
    };
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char *text = afx_dropin_text("x.service", values[i]);
        ck_assert(text != NULL);
        ck_assert(afx_dropin_is_ours(text, strlen(text)));
        ck_assert_msg(strchr(text, '\r') == NULL, "%s", text);
        size_t lines = 0;
        for (const char *p = text; (p = strchr(p, '\n')) != NULL; p++)
            lines++;
        ck_assert_int_eq(lines, 5);
        struct afx_unit_env e;
        afx_unit_env_init(&e);
        afx_unit_env_apply(&e, text, strlen(text), "x");
        ck_assert_msg(e.state == AFX_ENV_SET && strcmp(e.preload, values[i]) == 0, "%zu: %s", i, text);
        afx_unit_env_free(&e);
        free(text);
    }
    ck_assert(afx_dropin_text("x.service", "/\xff.so") == NULL);
    ck_assert(!afx_dropin_is_ours("[Service]\n", 10));
    ck_assert(!afx_dropin_is_ours("# Written by arenafix enablement\n", 33));
}
END_TEST

START_TEST(systemctl_show)
{
    char *v;
    ck_assert_int_eq(afx_show_preload("LoadState=loaded\nEnvironment=A=1 LD_PRELOAD=/a.so B=2\n", &v), 1);
    ck_assert_str_eq(v, "/a.so");
    free(v);
    ck_assert_int_eq(afx_show_preload("Environment=\"LD_PRELOAD=/usr/\\$LIB/a b.so\" \"X=\\\"\\n\\001\"\n", &v), 1);
    ck_assert_str_eq(v, "/usr/$LIB/a b.so");
    free(v);
    ck_assert_int_eq(afx_show_preload("Environment=\"LD_PRELOAD=/t\\tx\\303\\251\"\n", &v), 1);
    ck_assert_str_eq(v, "/t\tx\xc3\xa9");
    free(v);
    ck_assert_int_eq(afx_show_preload("LoadState=loaded\nEnvironment=A=1\n", &v), 0);
    ck_assert_int_eq(afx_show_preload("LoadState=not-found\n", &v), 0);
    ck_assert_int_eq(afx_show_preload("Environment=\"LD_PRELOAD=/open\n", &v), -1);
    ck_assert_int_eq(afx_show_preload("Environment=\"A\"B LD_PRELOAD=/a.so\n", &v), -1);
    ck_assert(v == NULL);
}
END_TEST

static bool collect(const char *name, void *arg)
{
    char *out = arg;
    strcat(out, name);
    strcat(out, " ");
    return true;
}

START_TEST(dropin_directories)
{
    static const char *const cases[][2] = {
        { "a.service", "a.service " },
        { "a-b-c.service", "a-b-c.service a-b-.service a-.service " },
        { "a-b@x.service", "a-b@x.service a-b@.service a-.service a-@x.service a-@.service " },
        { "a@.service", "a@.service " },
        { "-a.service", "-a.service " },
        { "a--b.service", "a--b.service a--.service a-.service " },
        { "a-.service", "a-.service " },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[512] = "";
        afx_unit_dropin_names(cases[i][0], collect, out);
        ck_assert_msg(strcmp(out, cases[i][1]) == 0, "%s: '%s', want '%s'", cases[i][0], out, cases[i][1]);
    }
}
END_TEST

START_TEST(unit_names)
{
    char s[256];
    ck_assert(afx_unit_name("web", s, sizeof s) && strcmp(s, "web.service") == 0);
    ck_assert(afx_unit_name("web@a\\x2db.service", s, sizeof s) && strcmp(s, "web@a\\x2db.service") == 0);
    ck_assert(afx_unit_name("web@", s, sizeof s) && afx_unit_is_template(s));
    ck_assert(!afx_unit_is_template("web@x.service"));
    static const char *const bad[] = { "", ".service", "@.service", "@x", "a/b", "..", "a@b@c", "a.socket",
                                       "a b", "a\nb" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!afx_unit_name(bad[i], s, sizeof s), "accepted '%s'", bad[i]);
    char longname[300];
    memset(longname, 'a', 260);
    longname[260] = '\0';
    ck_assert(!afx_unit_name(longname, s, sizeof s));
}
END_TEST

START_TEST(library_paths)
{
    ck_assert(afx_preload_entry_problem("/usr/lib/x86_64-linux-gnu/arenafix/libarenafix.so", false) == NULL);
    ck_assert(afx_preload_entry_problem("/usr/$LIB/arenafix/libarenafix.so", true) == NULL);
    ck_assert(afx_preload_entry_problem("/usr/$LIB/arenafix/libarenafix.so", false) != NULL);
    ck_assert(afx_preload_entry_problem("/usr/$PLATFORM/libarenafix.so", true) != NULL);
    static const char *const bad[] = { "", "lib.so", "./lib.so", "/a b.so", "/a:b.so", "/a\nb.so", "/a\tb.so",
                                       "/a\x7f.so", "/caf\xc3\xa9.so", "/a\rb" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(afx_preload_entry_problem(bad[i], true) != NULL, "accepted '%s'", bad[i]);
}
END_TEST

Suite *unitfile_suite(void)
{
    Suite *s = suite_create("unitfile");
    TCase *tc = tcase_create("unitfile");
    tcase_add_loop_test(tc, environment_as_systemd_reads_it, 0, sizeof env_cases / sizeof env_cases[0]);
    tcase_add_test(tc, other_settings);
    tcase_add_test(tc, dropin_round_trip);
    tcase_add_test(tc, systemctl_show);
    tcase_add_test(tc, dropin_directories);
    tcase_add_test(tc, unit_names);
    tcase_add_test(tc, library_paths);
    suite_add_tcase(s, tc);
    return s;
}
