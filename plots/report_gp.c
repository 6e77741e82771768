/* report_gp.c - gnuplot for the report and the comparison: one visual code for modes, the script
 * skeleton every plot shares, the faceted "one panel per control block" figure, and running gnuplot.
 *
 * The visual code, used by every plot with mode lines so a reader learns it once:
 *   colour = transfer (async blue, sync orange, zerocopy green), dash = launch (coop solid,
 *   noncoop dashed), point = host memory (pinned filled circle, malloc open square); the native path
 *   is underlaid in wide gold and the WSL2 fallback path in wide magenta.
 * Scripts are self-contained and re-runnable by hand in the report directory (`gnuplot latency.gp`);
 * each writes NAME.png (pngcairo, or libgd png where gnuplot lacks cairo) and NAME.svg at the size it
 * states. gnuplot runs by fork + exec with cwd = the report directory: no shell ever sees a file name.
 */
#define _GNU_SOURCE /* prctl(PR_SET_PDEATHSIG) */

#include "report_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const xfer_colour[RB_XFER_COUNT] = {"#0072B2", "#E69F00", "#009E73"};
static const char *const launch_dash[RB_LAUNCH_COUNT] = {"1", "(10,6)"};
static const int host_point[RB_HOST_COUNT] = {7, 4};
#define NATIVE_UNDERLAY "#40F0B000" /* gnuplot colours are #AARRGGBB with AA = transparency */
#define FALLBACK_UNDERLAY "#60E000E0"

void report_gp_quote(FILE *gp, const char *s)
{
    fputc('\'', gp);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\'')
            fputs("''", gp);
        else if (c < 0x20 || c == 0x7f)
            fputc(' ', gp);
        else
            fputc(c, gp);
    }
    fputc('\'', gp);
}

void report_gp_mode_style(FILE *gp, const mode_spec *m)
{
    fprintf(gp, "lc rgb '%s' dt %s pt %d ps 1.1 lw 2", xfer_colour[m->v[RB_AXIS_XFER]],
            launch_dash[m->v[RB_AXIS_LAUNCH]], host_point[m->v[RB_AXIS_HOST]]);
}

void report_gp_begin(FILE *gp, const char *stem, const char *what, report_canvas c)
{
    fprintf(gp, "# %s.gp - %s\n", stem, what);
    fprintf(gp, "# Written by ringbench; re-run it from this directory: gnuplot %s.gp\n", stem);
    fprintf(gp, "# It writes %s.png (pngcairo, or png without cairo) and %s.svg, %d x %d pixels.\n", stem, stem,
            c.width, c.height);
    fprintf(gp,
            "do for [fmt in \"png svg\"] {\n"
            "reset\n"
            "if (fmt eq \"png\") {\n"
            "  if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
            "    set terminal pngcairo size %d,%d font \"sans,14\" noenhanced background rgb 'white'\n"
            "  } else {\n"
            "    set terminal png size %d,%d noenhanced\n"
            "  }\n"
            "  set output '%s.png'\n"
            "} else {\n"
            "  set terminal svg size %d,%d font \"sans,14\" noenhanced background rgb 'white'\n"
            "  set output '%s.svg'\n"
            "}\n"
            "set datafile missing 'NaN'\n"
            "set grid xtics ytics mxtics mytics lc rgb '#DDDDDD' lw 1\n",
            c.width, c.height, c.width, c.height, stem, c.width, c.height, stem);
}

void report_gp_end(FILE *gp) { fputs("unset multiplot\nset output\n}\n", gp); }

void report_gp_title(FILE *gp, const char *title, const char *note)
{
    fputs("set multiplot title ", gp);
    report_gp_quote(gp, title);
    if (note) {
        fputs(" . \"\\n\" . ", gp);
        report_gp_quote(gp, note);
    }
    fputs(" font ',15'\nset tmargin 5\n", gp);
}

/* The legend strip under a faceted figure: the visual code, the highlighted paths, the references. */
static void facet_legend(FILE *gp, const report_facet *p, double height)
{
    fprintf(gp, "set origin 0,0\nset size 1,%.3f\n", height);
    fputs("unset border\nunset tics\nunset grid\nunset xlabel\nunset ylabel\nunset title\nunset logscale\n"
          "unset object\nunset arrow\nunset label\nset xrange [0:1]\nset yrange [0:1]\n"
          "set margins 2,2,0,0\nset key center center horizontal maxrows 7 Left reverse width -8 samplen 3 spacing 1.1 "
          "font ',13'\n"
          "plot 2 notitle, \\\n",
          gp); /* a real (off-range) plot: keyentry alone trips a gnuplot assertion */
    for (int x = 0; x < RB_XFER_COUNT; x++)
        fprintf(gp, "  keyentry with lines lc rgb '%s' lw 3 title 'xfer %s', \\\n", xfer_colour[x],
                mode_axis_value(RB_AXIS_XFER, x));
    for (int l = 0; l < RB_LAUNCH_COUNT; l++)
        fprintf(gp, "  keyentry with lines lc rgb 'black' dt %s lw 2 title 'launch %s', \\\n", launch_dash[l],
                mode_axis_value(RB_AXIS_LAUNCH, l));
    for (int h = 0; h < RB_HOST_COUNT; h++)
        fprintf(gp, "  keyentry with points lc rgb 'black' pt %d ps 1.5 title 'host %s', \\\n", host_point[h],
                mode_axis_value(RB_AXIS_HOST, h));
    mode_spec nat = mode_native(), fb = mode_wsl2_fallback();
    fprintf(gp, "  keyentry with lines lc rgb '%s' lw 10 title '%s: %s/%s/%s', \\\n", NATIVE_UNDERLAY,
            mode_path_name(MODE_PATH_NATIVE), mode_axis_value(RB_AXIS_HOST, nat.v[RB_AXIS_HOST]),
            mode_axis_value(RB_AXIS_XFER, nat.v[RB_AXIS_XFER]), mode_axis_value(RB_AXIS_LAUNCH, nat.v[RB_AXIS_LAUNCH]));
    fprintf(gp, "  keyentry with lines lc rgb '%s' lw 10 title '%s: %s'", FALLBACK_UNDERLAY,
            mode_path_name(MODE_PATH_FALLBACK), report_mode_str(&fb));
    for (size_t i = 0; i < p->nrefs; i++) {
        fprintf(gp, ", \\\n  keyentry with lines %s title ", p->refs[i].style);
        report_gp_quote(gp, p->refs[i].title);
    }
    fputs("\n", gp);
}

/* One panel: the modes with control block ctrl, each a line against size. */
static void facet_panel(FILE *gp, const report_facet *p, int ctrl, double x0, double w, double y0, double h)
{
    fprintf(gp, "set origin %.4f,%.4f\nset size %.4f,%.4f\n", x0, y0, w, h);
    fprintf(gp, "set title 'control block: %s' font ',13' offset 0,-0.6\n", mode_axis_value(RB_AXIS_CTRL, ctrl));
    fputs("plot \\\n", gp);
    int first = 1;
    /* Underlays first, so the mode lines are drawn on top of them. */
    for (size_t k = 0; k < RB_MODE_COUNT; k++) {
        mode_spec m = mode_at(k);
        if (m.v[RB_AXIS_CTRL] != ctrl || !p->has[k] || !(report_mode_is_native(&m) || report_mode_is_fallback(&m)))
            continue;
        fprintf(gp, "%s  '%s' using 1:%zu with lines lc rgb '%s' lw 12 notitle", first ? "" : ", \\\n", p->data, k + 2,
                report_mode_is_native(&m) ? NATIVE_UNDERLAY : FALLBACK_UNDERLAY);
        first = 0;
    }
    for (size_t k = 0; k < RB_MODE_COUNT; k++) {
        mode_spec m = mode_at(k);
        if (m.v[RB_AXIS_CTRL] != ctrl || !p->has[k])
            continue;
        fprintf(gp, "%s  '%s' using 1:%zu with linespoints ", first ? "" : ", \\\n", p->data, k + 2);
        report_gp_mode_style(gp, &m);
        fprintf(gp, " title '%s'", report_mode_str(&m));
        first = 0;
    }
    for (size_t i = 0; i < p->nrefs; i++) {
        fprintf(gp, "%s  '%s' using 1:%d with lines %s notitle", first ? "" : ", \\\n", p->data, p->refs[i].col,
                p->refs[i].style);
        first = 0;
    }
    if (first) /* nothing measured with this control block: an empty panel with ranges of its own */
        fputs("  [1:16][1:10] NaN notitle", gp);
    fputs("\n", gp);
}

void report_gp_facet(FILE *gp, const report_facet *p)
{
    /* The panels are stacked, each the full width of a docs column, over one legend strip: side by side,
     * three panels of an 800 px column left 11 size labels ~20 px each ("8 B16 B"). */
    const double legend_h = 0.17, top = 0.92, h = (top - legend_h) / RB_CTRL_COUNT;
    fputs("set multiplot title ", gp);
    report_gp_quote(gp, p->title);
    if (p->note) {
        fputs(" . \"\\n\" . ", gp);
        report_gp_quote(gp, p->note);
    }
    fputs(" font ',15'\n", gp);
    fputs("unset key\nset logscale x 2\nset lmargin 12\nset rmargin 3\nset tmargin 2\nset bmargin 2.5\n", gp);
    report_gp_size_xtics(gp, p->sizes, p->nsizes);
    fputs(p->logy ? "set logscale y 10\nset format y '%g'\nset ytics font ',13'\n" : "unset logscale y\n", gp);
    if (p->band)
        fprintf(gp, "%s\n", p->band);
    for (int c = 0; c < RB_CTRL_COUNT; c++) {
        /* one y label for the three panels, on the middle one; the x label under the last */
        fputs("set ylabel ", gp);
        report_gp_quote(gp, c == RB_CTRL_COUNT / 2 ? p->ylabel : "");
        fputs(c == RB_CTRL_COUNT - 1 ? "\nset xlabel 'message size (payload bytes, log scale)'\nset bmargin 4\n"
                                     : "\nunset xlabel\n",
              gp);
        facet_panel(gp, p, c, 0.0, 1.0, legend_h + (RB_CTRL_COUNT - 1 - c) * h, h);
    }
    facet_legend(gp, p, legend_h);
}

void report_gp_size_xtics(FILE *gp, const uint64_t *sizes, size_t n)
{
    /* At most 6 labels, so that none touches the next at an 800 px column; the others keep a tic. */
    char buf[32];
    size_t step = n > 6 ? (n + 5) / 6 : 1;
    if (n == 0) {
        fputs("set xtics autofreq\n", gp);
        return;
    }
    fputs("set xtics (", gp);
    for (size_t i = 0; i < n; i++)
        fprintf(gp, "%s'%s' %llu", i ? ", " : "", i % step == 0 ? report_size_str(sizes[i], buf, sizeof buf) : "",
                (unsigned long long)sizes[i]);
    fputs(") font ',13'\nunset mxtics\n", gp);
}

int report_gnuplot_find(char *out, size_t n)
{
    if (out == NULL || n == 0)
        return -1;
    const char *path = getenv("PATH");
    if (path == NULL || *path == '\0')
        return -1;
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        /* An empty PATH entry means the current directory, by POSIX. */
        snprintf(out, n, "%.*s/gnuplot", (int)(len ? len : 1), len ? path : ".");
        if (access(out, X_OK) == 0)
            return 0;
        path += len + (colon != NULL);
        if (!colon)
            break;
    }
    return -1;
}

// --- running gnuplot -------------------------------------------------------------------------------------

static volatile sig_atomic_t *gp_stop;

void report_watch(volatile sig_atomic_t *stop) { gp_stop = stop; }

int report_stopped(void) { return gp_stop != NULL && *gp_stop; }

/* Whether an image gnuplot wrote is whole: a PNG ends with its IEND chunk, an SVG with </svg>.
 * gnuplot says nothing and exits 0 when the disk fills or a file-size limit cuts its output. An
 * absent image is not checked (gnuplot draws what it has data for). */
static int image_whole(const char *path, int png)
{
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    unsigned char tail[16] = {0};
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return errno == ENOENT;
    long want = png ? 12 : 16;
    size_t got = fseek(f, -want, SEEK_END) == 0 ? fread(tail, 1, (size_t)want, f) : 0;
    fclose(f);
    if (got != (size_t)want)
        return 0;
    if (png)
        return memcmp(tail, iend, sizeof iend) == 0;
    return strstr((const char *)tail, "</svg>") != NULL;
}

/* The images script X.gp drew (X.png, X.svg), checked whole; the reason of one cut off into err, with
 * the errno a write to it gets now (the full disk or the file-size limit that cut it). */
static int images_whole(const char *dir, const char *script, char *err, size_t errlen)
{
    size_t stem = strlen(script) > 3 ? strlen(script) - 3 : strlen(script);
    for (int png = 1; png >= 0; png--) {
        char *path = outfs_path("%s/%.*s.%s", dir, (int)stem, script, png ? "png" : "svg");
        if (path == NULL || image_whole(path, png)) {
            free(path);
            continue;
        }
        int fd = open(path, O_WRONLY | O_APPEND), e = 0;
        if (fd >= 0 && write(fd, "", 1) != 1)
            e = errno;
        if (fd >= 0)
            close(fd);
        snprintf(err, errlen, "gnuplot %s: %s is cut off: %s", script, path, e ? strerror(e) : "incomplete image");
        free(path);
        return -1;
    }
    return 0;
}

/* Waits for gnuplot; an interrupt (report_watch) ends it first. Returns its wait status, or -1 with
 * err set. */
static int gnuplot_wait(pid_t pid, char *err, size_t errlen)
{
    int status = 0, killed = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            snprintf(err, errlen, "waitpid: %s", strerror(errno));
            return -1;
        }
        if (report_stopped() && !killed) {
            kill(pid, SIGTERM);
            killed = 1;
        }
    }
    if (killed || report_stopped()) {
        snprintf(err, errlen, "interrupted");
        return -1;
    }
    return status;
}

int report_gnuplot_run(const char *gnuplot, const char *dir, const char *script, char *err, size_t errlen)
{
    char *log = outfs_path("%s/gnuplot.log", dir);
    int fd = log ? open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666) : -1;
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", log ? log : dir, log ? strerror(errno) : "out of memory");
        free(log);
        return -1;
    }
    free(log);
    if (report_stopped()) {
        close(fd);
        snprintf(err, errlen, "interrupted");
        return -1;
    }
    char *const argv[] = {(char *)"gnuplot", (char *)script, NULL};
    const pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(fd);
        return -1;
    }
    if (pid == 0) {
        /* Child: only async-signal-safe calls between fork and exec. It dies with ringbench, even one
         * killed outright: no gnuplot goes on writing into a report that was abandoned. */
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent || chdir(dir) != 0 ||
            dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
            _exit(126);
        execv(gnuplot, argv);
        _exit(127);
    }
    close(fd);
    int status = gnuplot_wait(pid, err, errlen);
    if (status < 0)
        return -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return images_whole(dir, script, err, errlen);
    if (WIFEXITED(status))
        snprintf(err, errlen, "gnuplot %s exited with status %d (see gnuplot.log in the report directory)", script,
                 WEXITSTATUS(status));
    else
        snprintf(err, errlen, "gnuplot %s was killed by signal %d", script, WTERMSIG(status));
    return -1;
}

int report_render(const char *cmd, const char *dir, const char *const *scripts, int render)
{
    char gnuplot[REPORT_PATH_MAX], err[REPORT_PATH_MAX + 256];
    int rc = 0;
    if (!render)
        return 0;
    if (report_gnuplot_find(gnuplot, sizeof gnuplot) != 0) {
        fprintf(stderr,
                "ringbench %s: WARNING: gnuplot not found on PATH: no plots rendered; the data (*.dat) and "
                "scripts (*.gp) are in %s (install gnuplot and run e.g. 'gnuplot %s' there)\n",
                cmd, dir, scripts[0] ? scripts[0] : "");
        return 0;
    }
    for (size_t i = 0; scripts[i] && !report_stopped(); i++) {
        if (report_gnuplot_run(gnuplot, dir, scripts[i], err, sizeof err) != 0) {
            if (!report_stopped())
                fprintf(stderr, "ringbench %s: %s\n", cmd, err);
            rc = -1;
        }
    }
    return rc;
}
