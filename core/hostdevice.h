// Lets one inline definition of the filter math compile for the CPU backend
// and, under nvcc, for the CUDA kernels: the backends cannot drift apart.
#pragma once

#if defined(__CUDACC__)
#define EW_HD __host__ __device__ __forceinline__
#else
#define EW_HD inline
#endif
