// Lets one inline definition of the filter math compile for the CPU backend
// and, under nvcc, for the CUDA kernels: the backends cannot drift apart.
#pragma once

#if defined(__CUDACC__)
#define EW_HD __host__ __device__ __forceinline__
#else
#define EW_HD inline
#endif

// Unrolls the next loop completely in device code when its trip count is
// known at compile time (arrays indexed by it then stay in registers); the
// host compilers never see the pragma.
#if defined(__CUDA_ARCH__)
#define EW_UNROLL _Pragma("unroll")
#else
#define EW_UNROLL
#endif

// A point the device compiler's scheduler does not move memory reads
// across (the warp's active threads meet there): placed every few rows of
// a long unrolled computation, it keeps ptxas from issuing every later
// row's reads at once into more registers than a thread has (spills).
#if defined(__CUDA_ARCH__)
#define EW_SCHEDULE_FENCE() __syncwarp(__activemask())
#else
#define EW_SCHEDULE_FENCE() ((void)0)
#endif
