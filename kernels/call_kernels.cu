// call_kernels.cu - the empty kernel behind the launch-cost baselines (call_launch_empty: a launch
// without waiting; call_launch_sync: a launch and cudaStreamSynchronize). Built by kernels/CMakeLists.txt
// into rb_kernels; exercised by `ringbench probe` and every CUDA run's baselines.
#include "call_kernels.h"

// --- kernel -----------------------------------------------------------------------------------------

__global__ void rb_empty_kernel(void) {}

// --- launchers --------------------------------------------------------------------------------------

extern "C" cudaError_t rb_empty_prepare(void)
{
    cudaFuncAttributes attr;
    return cudaFuncGetAttributes(&attr, rb_empty_kernel);
}

extern "C" cudaError_t rb_empty_launch(cudaStream_t stream)
{
    rb_empty_kernel<<<1, 1, 0, stream>>>();
    return cudaGetLastError();
}
