#!/usr/bin/env bash
# The seed's 128^3 x 2000 case, CPU reference against the strict GPU builds,
# on the GPU machine (builds nothing; carry build/ with build/strict/).
#   bash bench/device_ref128.sh start   # CPU reference in the background
#                                       # (setsid: it outlives this command)
#   bash bench/device_ref128.sh check [MERGED_DUMP]
#        waits for it, runs split (strict) on the GPU, compares both strict
#        GPU dumps with the CPU dump: compare_fields --tol 0 (bit for bit)
set -u
cd "$(dirname "$0")/.."
W=/tmp/ref128; mkdir -p $W
csum() { od -An -t x8 -j $(( $(stat -c %s "$1") - 8 )) -N 8 "$1" | tr -d ' '; }
case "${1:-}" in
start)
  rm -rf $W/cpu $W/cpu.done
  THREADS=${THREADS:-12}
  setsid bash -c "OMP_NUM_THREADS=$THREADS build/adiflow cases/seed128.nml --backend cpu --run-dir $W/cpu \
    > $W/cpu.log 2>&1; echo \$? > $W/cpu.done" < /dev/null > /dev/null 2>&1 &
  echo "CPU reference 128^3 x 2000 started with $THREADS threads (log $W/cpu.log)"
  ;;
check)
  MD=${2:-/tmp/merged/s128ms/field.dump}
  build/strict/adiflow cases/seed128.nml --backend cuda --kernels split --run-dir $W/split > $W/split.log 2>&1
  echo "strict split GPU: $(grep -E '^ +2000 ' $W/split.log | awk '{print $9}') s/iteration"
  while [ ! -f $W/cpu.done ]; do sleep 5; done
  echo "CPU reference: exit $(cat $W/cpu.done), $(grep -E '^ +2000 ' $W/cpu.log | awk '{print $9}') s/iteration"
  echo "checksums: CPU $(csum $W/cpu/field.dump)  split-strict $(csum $W/split/field.dump)  merged-strict $([ -f $MD ] && csum $MD)"
  build/compare_fields $W/cpu/field.dump $W/split/field.dump --tol 0; echo "split strict vs CPU: exit $?"
  [ -f $MD ] && { build/compare_fields $W/cpu/field.dump $MD --tol 0; echo "merged strict vs CPU: exit $?"; }
  cmp <(grep -E '^ +[0-9]+ ' $W/cpu.log | awk '{print $1,$3,$4,$5,$6,$7}') \
      <(grep -E '^ +[0-9]+ ' $W/split.log | awk '{print $1,$3,$4,$5,$6,$7}') && echo "residual history: split strict == CPU"
  ;;
*) echo "usage: $0 start|check [MERGED_DUMP]"; exit 2;;
esac
