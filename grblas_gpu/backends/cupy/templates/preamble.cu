// grblas_gpu generated kernels: shared preamble.
// No standard headers: this unit compiles under NVRTC as well as nvcc.  The
// fixed-width typedefs are spelled exactly as glibc spells them, so where nvcc
// also pulls in <stdint.h> the duplicate declarations are harmless.
typedef signed char int8_t;
typedef short int int16_t;
typedef int int32_t;
typedef long int int64_t;
typedef unsigned char uint8_t;
typedef unsigned short int uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long int uint64_t;

// ---- operator helpers (grblas_gpu.operators.cmath.CUDA_HELPERS)
{{CUDA_HELPERS}}
