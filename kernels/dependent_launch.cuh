// The prologue of every kernel ndcuda generates: Hopper's programmatic dependent launch (PDL).
// Builds on nothing; the host side launches these kernels with the PDL attribute (src/jit/module.cpp).
#pragma once

namespace ndcuda {

/// First statement of every generated kernel, before any global memory access. Launched with
/// CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, a kernel's blocks may start while the
/// previous kernel on the stream still runs; `griddepcontrol.wait` holds them until that grid
/// has completed and its writes are visible, so reading its output (RAW) or overwriting its
/// input (WAR) stays safe. `launch_dependents` then lets the next kernel be scheduled early: its
/// own wait still blocks until this whole grid has finished, so issuing it this soon is safe.
/// Below sm_90 (and on a launch without the attribute) both are no-ops or absent.
__device__ __forceinline__ void dependent_launch_prologue() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

}  // namespace ndcuda
