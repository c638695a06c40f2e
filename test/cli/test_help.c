/* --help everywhere: the top-level help lists the subcommands, each of
 * them answers -h and --help, and every block of every help lines up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* The lines of the block headed HEADER ("Subcommands:") in TEXT, up to
 * the blank line that ends it; NULL if there is none.  Caller frees. */
static char *block(const char *text, const char *header)
{
    char want[64];
    snprintf(want, sizeof want, "\n%s\n", header);
    const char *start = strstr(text, want);
    if (start == NULL)
        return NULL;
    start += strlen(want);
    const char *end = strstr(start, "\n\n");
    return strndup(start, end ? (size_t)(end - start) + 1 : strlen(start));
}

/* The column where LINE's description starts: after the first gap of two
 * spaces or more that follows its first word; a line with no such gap
 * continues the description above it, from its first character. */
static int description_column(const char *line)
{
    const char *p = line + strspn(line, " ");
    const char *gap = strstr(p, "  ");
    if (gap == NULL)
        return (int)(p - line);
    return (int)(gap + strspn(gap, " ") - line);
}

/* Every block of HELP (a line that ends in ':' at column 0, then its
 * indented lines) has one description column, and no line is wider
 * than a terminal's 80 columns.  WHO names the help. */
static void assert_blocks_line_up(const char *who, const char *help)
{
    for (const char *line = help; *line;) {
        size_t len = strcspn(line, "\n");
        ck_assert_msg(len <= 80, "%s: a line of %zu columns, wider than a terminal: %.*s", who, len,
                      (int)len, line);
        line += len + (line[len] == '\n');
    }
    int blocks = 0;
    for (const char *line = help; *line; line = strchr(line, '\n') + 1) {
        size_t len = strcspn(line, "\n");
        if (len < 2 || line[0] == ' ' || line[len - 1] != ':') {
            if (line[len] == '\0')
                break;
            continue;
        }
        char header[64];
        snprintf(header, sizeof header, "%.*s", (int)len, line);
        char *lines = block(help, header);
        ck_assert_ptr_nonnull(lines);
        int column = -1;
        for (char *l = strtok(lines, "\n"); l != NULL; l = strtok(NULL, "\n")) {
            int c = description_column(l);
            ck_assert_msg(column < 0 || c == column,
                          "%s, block %s: \"%s\" starts its description at column %d, the lines "
                          "above at %d", who, header, l, c, column);
            column = c;
        }
        free(lines);
        blocks++;
    }
    ck_assert_msg(blocks >= 2, "%s: no blocks of options and examples:\n%s", who, help);
}

/* The word after "arenafix" on each line of the top-level help's Subcommands block. */
static int listed_subcommands(char subs[][32], int max)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "--help"));
    ck_assert_status(&r, 0);
    char *lines = block(r.out, "Subcommands:");
    ck_assert_msg(lines != NULL, "no Subcommands: block in arenafix --help:\n%s", r.out);
    int n = 0;
    for (char *l = strtok(lines, "\n"); l != NULL; l = strtok(NULL, "\n")) {
        char word[32];
        if (sscanf(l, " arenafix %31[a-z-]", word) != 1)
            continue;
        bool seen = false;
        for (int i = 0; i < n; i++)
            seen = seen || strcmp(subs[i], word) == 0;
        if (!seen && n < max)
            snprintf(subs[n++], sizeof subs[0], "%s", word);
    }
    free(lines);
    run_free(&r);
    return n;
}

/* git and systemctl users type "SUB --help", "SUB -h" and "help SUB". */
START_TEST(every_listed_subcommand_answers_help)
{
    char subs[16][32];
    int n = listed_subcommands(subs, 16);
    ck_assert_int_ge(n, 3);
    for (int i = 0; i < n; i++) {
        const char *sub = subs[i];
        char want[64];
        snprintf(want, sizeof want, "Usage: arenafix %.31s", sub);
        const char *const *ways[] = { ARGV(cli(), sub, "--help"), ARGV(cli(), sub, "-h"),
                                      ARGV(cli(), "help", sub) };
        for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
            struct run r;
            run(&r, NULL, ways[w]);
            bool answers = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0
                           && strncmp(r.out, want, strlen(want)) == 0 && r.err[0] == '\0';
            ck_assert_msg(answers, "arenafix %s %s: want exit 0, \"%s\" on stdout and nothing "
                          "on stderr; got wait status 0x%x, stdout: %s; stderr: %s",
                          ways[w][1], ways[w][2], want, r.status, r.out, r.err);
            if (w == 0)
                assert_blocks_line_up(sub, r.out);
            run_free(&r);
        }
    }
}
END_TEST

/* Descriptions in one column, then examples, then the exit statuses:
 * what an operator scans for. */
START_TEST(top_level_help_lines_up_and_gives_examples)
{
    static const char *const ways[] = { "--help", "-h", "help" };
    for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
        struct run r;
        run(&r, NULL, ARGV(cli(), ways[i]));
        ck_assert_status(&r, 0);
        ck_assert_str_eq(r.err, "");
        ck_assert_msg(strncmp(r.out, "Usage: arenafix ", 16) == 0, "%s", r.out);
        assert_blocks_line_up("arenafix --help", r.out);
        const char *subs = strstr(r.out, "\nSubcommands:\n"), *options = strstr(r.out, "\nOptions");
        const char *examples = strstr(r.out, "\nExamples:\n"), *exits = strstr(r.out, "\nExit status:");
        ck_assert_msg(subs && options && examples && exits && subs < options && options < examples
                      && examples < exits, "want Subcommands, Options, Examples, Exit status in "
                      "that order:\n%s", r.out);
        /* Each example is a command line of this program. */
        char *lines = block(r.out, "Examples:");
        int n = 0;
        for (char *l = strtok(lines, "\n"); l != NULL; l = strtok(NULL, "\n"), n++)
            ck_assert_msg(strncmp(l, "  arenafix ", 11) == 0, "example \"%s\"", l);
        ck_assert_int_ge(n, 3);
        free(lines);
        static const char see[] = "\nSee arenafix(1).\n";
        size_t len = strlen(r.out);
        ck_assert_msg(len > strlen(see) && strcmp(r.out + len - strlen(see), see) == 0, "%s", r.out);
        run_free(&r);
    }
    /* The wrapper's own options take -h too, and it is the same help. */
    struct run top, wrapper;
    run(&top, NULL, ARGV(cli(), "--help"));
    run(&wrapper, NULL, ARGV(cli(), "-v", "--help"));
    ck_assert_status(&wrapper, 0);
    ck_assert_str_eq(wrapper.out, top.out);
    run_free(&top);
    run_free(&wrapper);
}
END_TEST

START_TEST(help_of_nothing_known_is_a_usage_error)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "help", "frobnicate"));
    ck_assert_status(&r, 2);
    ck_assert_str_eq(r.out, "");
    ck_assert_str_eq(r.err, "arenafix: help: no subcommand frobnicate; arenafix --help lists them\n");
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "probe", "--bogus"));
    ck_assert_status(&r, 2);
    ck_assert_msg(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "one line: %s", r.err);
    run_free(&r);
}
END_TEST

Suite *help_suite(void)
{
    Suite *s = suite_create("help");
    TCase *tc = tcase_create("help");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, every_listed_subcommand_answers_help);
    tcase_add_test(tc, top_level_help_lines_up_and_gives_examples);
    tcase_add_test(tc, help_of_nothing_known_is_a_usage_error);
    suite_add_tcase(s, tc);
    return s;
}
