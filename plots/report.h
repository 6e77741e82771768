/* report.h - entry points of `ringbench report` and `ringbench compare` (plots/).
 *
 * Both read results files only, never a live run, and need no GPU. argv[0] is the subcommand name
 * ("report" / "compare"); the return value is the process exit code: 0 ok (also when gnuplot is
 * missing: data and scripts are written, with a warning), 1 runtime failure, 2 usage error or a file
 * that cannot be used (not HDF5, truncated, newer schema, nothing to pair).
 */
#ifndef RINGBENCH_REPORT_H
#define RINGBENCH_REPORT_H

int report_cmd(int argc, char **argv);
int compare_cmd(int argc, char **argv);
/* `ringbench sensitivity report DIR`: the injected-cost sweep's files (plots/sensitivity.c). */
int sensitivity_report_cmd(int argc, char **argv);

#endif
