/* cmd_list.c - `ringbench list [TOPIC]`: the mode axes and combinations, the presets, the --sizes
 * grammar and each preset's sizes, the metric families; each printed from the table that defines it.
 * Exercised by tests/cli_test.sh (badinput).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "modes.h"
#include "schema.h"
#include "sweep.h"

static void list_modes(void)
{
    printf("Mode axes (--modes AXIS=V1|V2,...):\n");
    for (int a = 0; a < RB_AXIS_COUNT; a++)
        for (size_t v = 0; v < mode_axis_size((mode_axis)a); v++)
            printf("  %-7s %-9s %s\n", mode_axis_name((mode_axis)a), mode_axis_value((mode_axis)a, (int)v),
                   mode_axis_doc((mode_axis)a, (int)v));
    printf("Combinations (%d):\n", RB_MODE_COUNT);
    for (size_t i = 0; i < RB_MODE_COUNT; i++) {
        mode_spec m = mode_at(i);
        char label[64];
        const char *why = mode_invalid_reason(&m);
        printf("  %-30s %s%s\n", mode_label(&m, label, sizeof label), why ? "invalid: " : "valid", why ? why : "");
    }
}

static void list_presets(void)
{
    printf("Presets (--preset):\n");
    for (size_t i = 0; i < preset_count(); i++) {
        const preset_def *p = preset_at(i);
        printf("  %-8s sizes %-12s latency: >= %zu samples and %.2g s, at most %.2g s per cell, CI of the median "
               "within %.0f%%; throughput: %d x %.2g s\n           %s\n",
               p->name, p->sizes, p->latency.rule.min_samples, p->latency.rule.min_seconds, p->latency.rule.max_seconds,
               p->latency.rule.rel_ci_width * 100, p->tput_reps, p->tput_rep_seconds, p->doc);
    }
}

static void list_sizes(void)
{
    printf("Sizes (--sizes): comma-separated sizes (8, 4K, 16M) and ranges: LO..HI = every power of two\n"
           "between, LO..HI:xF = LO, LO*F, ... up to HI. Multiples of 4 from 4 B to 1 GiB.\n");
    for (size_t i = 0; i < preset_count(); i++) {
        preset_sizes s;
        char err[128], name[32];
        preset_sizes_parse(preset_at(i)->sizes, &s, err, sizeof err);
        printf("  %-8s", preset_at(i)->name);
        for (size_t k = 0; k < s.n; k++)
            printf(" %s%s", preset_size_name(s.v[k], name, sizeof name), k + 1 < s.n ? "," : "\n");
    }
}

static void list_families(void)
{
    int width = 0; /* the longest name's, so that units and descriptions line up */
    for (int f = 0; f < RB_FAM_COUNT; f++) {
        const int len = (int)strlen(rb_family_name((rb_family)f));
        width = len > width ? len : width;
    }
    printf("Metric families (results file column 'family'):\n");
    for (int f = 0; f < RB_FAM_COUNT; f++)
        printf("  %-*s %-5s %s\n", width, rb_family_name((rb_family)f), rb_family_unit((rb_family)f),
               rb_family_doc((rb_family)f));
}

/* The topics, in the order `list` (all) prints them. */
static const struct {
    const char *name;
    void (*print)(void);
} topics[] = {{"modes", list_modes}, {"presets", list_presets}, {"sizes", list_sizes}, {"families", list_families}};

static const struct option list_opts[] = {CLI_OPT_HELP, {NULL, 0, NULL, 0}};

int cmd_list(int argc, char **argv)
{
    cli_getopt_begin();
    int c;
    while ((c = cli_getopt("list", argc, argv, ":h", list_opts)) != -1) {
        if (c != 'h')
            return CLI_EXIT_USAGE;
        printf("usage: ringbench list [modes|presets|sizes|families|all]\n");
        return CLI_EXIT_OK;
    }
    if (optind + 1 < argc) {
        fprintf(stderr, "ringbench list: one topic at a time ('%s' is extra)\n", argv[optind + 1]);
        return CLI_EXIT_USAGE;
    }
    const char *what = optind < argc ? argv[optind] : "all";
    int all = strcmp(what, "all") == 0, shown = 0;
    for (size_t i = 0; i < sizeof topics / sizeof *topics; i++)
        if (all || strcmp(what, topics[i].name) == 0) {
            topics[i].print();
            shown = 1;
        }
    if (!shown) {
        fprintf(stderr, "ringbench list: unknown topic '%s' (modes, presets, sizes, families, all)\n", what);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}
