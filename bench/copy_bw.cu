/* Device copy bandwidth: cudaMemcpy device-to-device of a large buffer,
 * the reference the merged kernels' achieved bandwidth is compared with
 * (bench/device_merged.sh). Counts read + write bytes (2 x size per copy).
 *   copy_bw [MiB per buffer, default 2048] [repetitions, default 20]
 * Prints: "copy_bw: N MiB x R: X GB/s (read+write), best Y GB/s". */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#define CK(call)                                                                   \
  do {                                                                             \
    cudaError_t e_ = (call);                                                       \
    if (e_ != cudaSuccess) {                                                       \
      fprintf(stderr, "copy_bw: %s: %s\n", #call, cudaGetErrorString(e_));         \
      return 1;                                                                    \
    }                                                                              \
  } while (0)

int main(int argc, char **argv)
{
  size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 2048, bytes = mib << 20;
  int reps = argc > 2 ? atoi(argv[2]) : 20, r;
  void *a = NULL, *b = NULL;
  cudaEvent_t e0, e1;
  float ms, best = 1e30f, total = 0.0f;
  if (reps < 1) reps = 1;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMemset(a, 1, bytes));
  CK(cudaMemset(b, 0, bytes));
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));   /* warm-up */
  for (r = 0; r < reps; ++r) {
    CK(cudaEventRecord(e0));
    CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    total += ms;
    if (ms < best) best = ms;
  }
  printf("copy_bw: %zu MiB x %d: %.1f GB/s (read+write, mean), best %.1f GB/s\n", mib, reps,
         2.0*(double)bytes*reps/(total*1e-3)/1e9, 2.0*(double)bytes/(best*1e-3)/1e9);
  cudaFree(a);
  cudaFree(b);
  return 0;
}
