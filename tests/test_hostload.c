/* test_hostload.c - the machine's CPU counters around a trial (harness/hostload.h): /proc/stat
 * parsing, differences, and what the process's own counters say across real work. */
#include <math.h>
#include <unistd.h>

#include "check.h"
#include "hostload.h"

static const char stat_a[] = "cpu  100 5 50 9000 10 3 7 20 0 0\n"
                             "cpu0 60 5 30 4500 5 2 4 15 0 0\n"
                             "cpu1 40 0 20 4500 5 1 3 5 0 0\n"
                             "intr 123\n";
static const char stat_b[] = "cpu  160 5 70 9100 10 5 9 45 0 0\n"
                             "cpu0 100 5 40 4550 5 3 5 35 0 0\n"
                             "cpu1 60 0 30 4550 5 2 4 10 0 0\n";

static void test_parse(void)
{
    hostload a, b;
    CHECK_INT(hostload_parse_stat(stat_a, 1, &a), 0);
    CHECK(a.have_stat && a.cpu == 1);
    CHECK_INT(a.busy_ticks, 100 + 5 + 50 + 3 + 7);
    CHECK_INT(a.irq_ticks, 10);
    CHECK_INT(a.steal_ticks, 20);
    CHECK_INT(a.cpu_steal_ticks, 5);
    CHECK_INT(hostload_parse_stat(stat_b, 1, &b), 0);
    /* cpu10 must not be taken for cpu1, nor a missing CPU's line for any */
    hostload c;
    CHECK_INT(hostload_parse_stat(stat_a, 7, &c), 0);
    CHECK(c.have_stat && c.cpu == -1);
    CHECK_INT(hostload_parse_stat("cpu  1 2 3 4 5 6 7 8\ncpu10 1 2 3 4 5 6 7 8\n", 1, &c), 0);
    CHECK(c.cpu == -1 && c.ncpus == 11 && c.each_steal[10] == 8 && c.each_steal[1] == 0);
    CHECK_INT(hostload_parse_stat("cpu10 1 2 3 4 5 6 7 8\n", 1, &c), -1);
    CHECK(!c.have_stat);
    CHECK_INT(hostload_parse_stat("cpu  1 2 3\n", -1, &c), -1); /* too few fields: no steal column */
    CHECK_INT(hostload_parse_stat("", -1, &c), -1);

    /* Differences: this process used 0.5 s of the 1.0 s of busy time that passed (100 ticks). */
    const long hz = sysconf(_SC_CLK_TCK);
    a.own_cpu_s = 1.0;
    b.own_cpu_s = 1.5;
    a.minflt = 10, b.minflt = 15;
    a.majflt = -1, b.majflt = 3;
    a.nivcsw = 2, b.nivcsw = 2;
    hostload_delta d;
    hostload_diff(&a, &b, &d);
    CHECK_NEAR(d.steal_ms, 25 * 1000.0 / hz, 1e-9);
    CHECK_NEAR(d.cpu_steal_ms, 5 * 1000.0 / hz, 1e-9);
    CHECK_NEAR(d.max_steal_ms, 20 * 1000.0 / hz, 1e-9); /* cpu0 lost 20 ticks, cpu1 5 */
    CHECK_INT(a.ncpus, 2);
    CHECK_NEAR(d.irq_ms, 4 * 1000.0 / hz, 1e-9);
    CHECK_NEAR(d.others_ms, (60 + 20 + 2 + 2) * 1000.0 / hz - 500.0, 1e-9);
    CHECK_INT(d.minflt, 5);
    CHECK_INT(d.majflt, -1); /* unknown at the start: unknown */
    CHECK_INT(d.nivcsw, 0);
    /* The polling thread moved to another CPU: its own steal is unknown, the rest is not. */
    b.cpu = 0;
    hostload_diff(&a, &b, &d);
    CHECK(isnan(d.cpu_steal_ms) && !isnan(d.steal_ms));
    /* No /proc/stat: NaN, never 0. */
    a.have_stat = 0;
    hostload_diff(&a, &b, &d);
    CHECK(isnan(d.steal_ms) && isnan(d.irq_ms) && isnan(d.others_ms) && isnan(d.cpu_steal_ms));
}

/* On this machine: touching fresh memory faults, and the process's CPU time grows with work. */
static void test_live(void)
{
    hostload a, b;
    hostload_take(0, &a);
    volatile unsigned char *p = malloc(64 << 20);
    for (size_t i = 0; p && i < (64u << 20); i += 4096)
        p[i] = (unsigned char)i;
    volatile double x = 0;
    for (int i = 0; i < 20000000; i++)
        x += i * 0.5;
    hostload_take(0, &b);
    free((void *)p);
    hostload_delta d;
    hostload_diff(&a, &b, &d);
    CHECK_MSG(d.minflt >= 1000, "64 MiB touched page by page faulted %lld times", (long long)d.minflt);
    CHECK(b.own_cpu_s > a.own_cpu_s);
    if (access("/proc/stat", R_OK) == 0)
        CHECK(a.have_stat && b.have_stat && d.steal_ms >= 0 && d.irq_ms >= 0);
    else
        CHECK(isnan(d.steal_ms));
}

int main(void)
{
    test_parse();
    test_live();
    CHECK_DONE();
}
