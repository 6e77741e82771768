/* stream_ops.h - stream memory operations: a 32-bit write and a 32-bit wait, in stream order.
 *
 * cuStreamWriteValue32 and cuStreamWaitValue32 let a stream itself write a control word after the
 * copies queued before it, or hold the copies queued after it until a word reaches a value. The
 * ring uses them so that an idle ring's round trip is queued at once (ring.h, stream_ops). They
 * are driver functions; they are reached through cudaGetDriverEntryPointByVersion, the runtime's
 * own way to call a driver function in the runtime's context, so ringbench still never creates or
 * switches a driver context and does not link libcuda itself. Where the entry points are missing
 * or a first write and wait on the memory fail (stream_ops_try; the probe records why), the ring
 * keeps its host-triggered path.
 */
#ifndef RINGBENCH_STREAM_OPS_H
#define RINGBENCH_STREAM_OPS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

/* Queues *word = value on stream after the work queued before it. 0, or -1 with why. */
int stream_ops_write32(cudaStream_t stream, uint32_t *word, uint32_t value, char *why, size_t n);

/* Queues a wait on stream until *word >= value (unsigned); work queued after it waits too. */
int stream_ops_wait_geq32(cudaStream_t stream, const uint32_t *word, uint32_t value, char *why, size_t n);

/* Tries both on word (device-accessible memory of the kind the ring will use) on stream: writes a
 * value, waits for it, synchronizes the stream. 0 when both work; -1 with why (missing entry
 * points, or the driver's error). */
int stream_ops_try(cudaStream_t stream, uint32_t *word, char *why, size_t n);

#endif
