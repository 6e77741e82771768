/* commands.h - the ringbench commands, one file each (cmd_run.c, cmd_report.c, ... in bench/), dispatched by main.c
 * from its one table. Each takes argv with argv[0] = the command's name, parses its options with one getopt_long table
 * (cli.h), and returns the process exit status: 0 ok, 1 a failure, 2 a usage error (one line on stderr). `-h/--help`
 * prints the command's help and returns 0.
 */
#ifndef RINGBENCH_COMMANDS_H
#define RINGBENCH_COMMANDS_H

#include "report.h"

int cmd_run(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_track(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_anatomy(int argc, char **argv);
int cmd_sensitivity(int argc, char **argv);

/* The options of report, compare and sensitivity report (-o/--output DIR, --no-render, --seed,
 * --reps, --min-effect, --call-overhead, -h/--help) into *o, and exactly nfiles operands into files.
 * cmd names the command in messages. Returns 0, 1 for --help, or -1 after one line on stderr. */
int cmd_report_options(const char *cmd, int argc, char **argv, report_opts *o, const char **files, int nfiles);

#endif
