/* anatomy_cmd.h - `ringbench anatomy`: where the time of one round trip goes (harness/anatomy.h). */
#ifndef RINGBENCH_ANATOMY_CMD_H
#define RINGBENCH_ANATOMY_CMD_H

int anatomy_cmd(int argc, char **argv);

#endif
