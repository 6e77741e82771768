/* track_cmd.h - the `ringbench track` and `ringbench export` commands (bench/track.c). Each takes
 * argv with argv[0] = the command name and returns the process exit status. */
#ifndef RINGBENCH_TRACK_CMD_H
#define RINGBENCH_TRACK_CMD_H

int track_cmd_track(int argc, char **argv);
int track_cmd_export(int argc, char **argv);

#endif
