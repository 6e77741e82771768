/* sensitivity_cmd.h - `ringbench sensitivity run|report` (bench/sensitivity.c, plots/sensitivity.c). */
#ifndef RINGBENCH_SENSITIVITY_CMD_H
#define RINGBENCH_SENSITIVITY_CMD_H

int sensitivity_cmd(int argc, char **argv);

#endif
