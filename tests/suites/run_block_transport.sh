#!/usr/bin/env bash
# The MPI host-staged transport of the GPU blocks (cuda/multi/transport_mpi.cu)
# on 2 ranks without a GPU: build/block_transport_check runs the block
# driver's message patterns through it over a host stand-in of the CUDA
# runtime (tests/unit/host_cuda/cuda_runtime.h). On GPUs, bench/device_mpi_mg.sh
# transport compares it with NCCL bit for bit. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
# through make: a binary older than its sources would test stale code
make -s BUILD="$B" "$B/block_transport_check" >/dev/null 2>&1 ||
  { echo "FAIL cannot build $B/block_transport_check (mpicxx)"; echo "0 passed, 1 failed"; exit 1; }
# OpenMPI as root needs --allow-run-as-root; a hung exchange ends at the timeout
out=$(timeout 120 mpirun --allow-run-as-root -np 2 "./$B/block_transport_check" 2>&1)
rc=$?
echo "$out"
if ! grep -qE '^[0-9]+ passed, [0-9]+ failed' <<< "$out"; then
  echo "FAIL mpirun -np 2 $B/block_transport_check exited with $rc before its summary"
  echo "0 passed, 1 failed"
fi
exit $rc
