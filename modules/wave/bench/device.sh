#!/usr/bin/env bash
# modules/wave/bench/device.sh - run on the GPU machine from the repository root, with
# the binaries already built into build/wave/ ('make wave wave-cuda'); builds nothing.
#   bash modules/wave/bench/device.sh            # everything (~5-8 min on 1-2 H200)
#   QUICK=1 bash modules/wave/bench/device.sh    # identity + sanitizer + one size
#   SCALING_ONLY=1 bash modules/wave/bench/device.sh   # ~4 min on 4 GPUs, needs >= 2: the CPU
#       reference + NCCL (and 2-slab single-process) identity, the 1-GPU 16384^2
#       baseline of the kernel KERNEL (default tile256) chunk CHUNK (default 64),
#       then section 4 only: strong scaling at 16384^2 and 32768^2, weak at 16384^2 per GPU,
#       both modes, with profile lines, each run's checksum against 1 GPU's
# Works with any number of visible GPUs (1, 2, ...). Prints a table at the end.
set -u
cd "$(dirname "$0")/../../.." || exit 2   # the repository root, from any folder
B=build/wave
CASE=modules/wave/cases/bench.case
for b in wave2d wave2d-dp wave2d-cuda wave2d-cuda-dp wave2d-mpi-cuda; do
    [ -x $B/$b ] || { echo "device.sh: $B/$b is missing - run 'make wave wave-cuda' first" >&2; exit 2; }
done
NG=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') || NG=0
[ "$NG" -ge 1 ] || { echo "device.sh: no GPU visible (nvidia-smi -L)" >&2; exit 2; }
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader
MPIRUN="mpirun --oversubscribe --bind-to none"
[ "$(id -u)" = 0 ] && MPIRUN="$MPIRUN --allow-run-as-root"
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_base_warn_component_unused=0 OMP_NUM_THREADS=${OMP_NUM_THREADS:-4}
O=$B/device; rm -rf $O; mkdir -p $O
TABLE=$O/table.txt; : > $TABLE
fails=0
row() { printf "%-58s %s\n" "$1" "$2" | tee -a $TABLE; }
cks() { grep -o 'checksum [0-9a-f]*' "$1" | tail -1 | cut -d' ' -f2; }
rate() { grep '^done:' "$1" | sed -E 's/.* s, ([0-9.]+) Mcells\/s.*/\1/'; }   # Mcells/s

perf() {  # label log command...  -> prints and records Gcells/s
    local label=$1 log=$2; shift 2
    "$@" > $O/$log.log 2>&1
    local r; r=$(rate $O/$log.log)
    if [ -n "$r" ]; then row "$label" "$(awk -v r=$r 'BEGIN{printf "%8.1f Gcells/s", r/1000}')"; echo "$r" > $O/$log.rate
    else row "$label" "FAILED (see $O/$log.log)"; fails=$((fails+1)); tail -3 $O/$log.log; fi
}
g() { cat $O/$1.rate 2>/dev/null || echo 0; }

echo "== 1. bit-identity (small case, FP32 and FP64, FMA off everywhere)"
SMALL="modules/wave/cases/small.case --nx 616 --ny 530 --nt 400 --rec_n 40 --write_final 1"
$B/wave2d $SMALL --out $O/id_cpu > $O/id_cpu.log 2>&1
REF=$(cks $O/id_cpu.log)
row "identity: CPU reference (1 process)" "${REF:-FAILED}"
idrun() {  # label outdir command...
    local label=$1 d=$2; shift 2
    "$@" --out $O/$d > $O/$d.log 2>&1
    local c; c=$(cks $O/$d.log)
    if [ -n "$c" ] && [ "$c" = "$REF" ] && cmp -s $O/id_cpu/final.bin $O/$d/final.bin && cmp -s $O/id_cpu/traces.bin $O/$d/traces.bin; then
        row "identity: $label" "MATCH"
    else
        row "identity: $label" "DIFF (${c:-no result}; see $O/$d.log)"; fails=$((fails+1)); tail -3 $O/$d.log
    fi
}
if [ -n "${SCALING_ONLY:-}" ]; then
    [ "$NG" -ge 2 ] || { echo "device.sh: SCALING_ONLY needs at least 2 GPUs ($NG visible)" >&2; exit 2; }
    idrun "2 slabs single-process (on 2 GPU)" id_g2 $B/wave2d-cuda $SMALL --mode gpu --gpus 2
    idrun "mpirun -np $NG, NCCL halos, 1 GPU per rank" id_mpi $MPIRUN -np $NG $B/wave2d-mpi-cuda $SMALL --mode gpu
fi
if [ -z "${SCALING_ONLY:-}" ]; then
for k in tile tile256 tile64 simple; do idrun "1 GPU, kernel $k" id_g1_$k $B/wave2d-cuda $SMALL --mode gpu --gpus 1 --kernel $k; done
idrun "1 GPU, tile, chunk 16" id_g1_c16 $B/wave2d-cuda $SMALL --mode gpu --gpus 1 --chunk 16
idrun "2 slabs single-process (on $((NG<2?1:2)) GPU)" id_g2 $B/wave2d-cuda $SMALL --mode gpu --gpus 2
idrun "2 slabs single-process, host-staged halos" id_g2_np $B/wave2d-cuda $SMALL --mode gpu --gpus 2 --no_peer 1
idrun "3 slabs single-process (uneven split)" id_g3 $B/wave2d-cuda $SMALL --mode gpu --gpus 3 --kernel tile256
[ "$NG" -gt 3 ] && idrun "$NG GPUs single-process" id_gall $B/wave2d-cuda $SMALL --mode gpu --gpus 0
idrun "mpirun -np $NG, $([ $NG -ge 2 ] && echo 'NCCL halos, 1 GPU per rank' || echo '1 rank (1 GPU: no NCCL exchange)')" id_mpi $MPIRUN -np $NG $B/wave2d-mpi-cuda $SMALL --mode gpu
idrun "mpirun -np 2, CPU ranks of the CUDA build" id_mpicpu $MPIRUN -np 2 $B/wave2d-mpi-cuda $SMALL --mode cpu
REF32=$REF
$B/wave2d-dp $SMALL --out $O/id_cpu_dp > $O/id_cpu_dp.log 2>&1; REF=$(cks $O/id_cpu_dp.log)
mv $O/id_cpu $O/id_cpu32; mv $O/id_cpu_dp $O/id_cpu
idrun "FP64: 2 slabs single-process vs CPU FP64" id_dp_g2 $B/wave2d-cuda-dp $SMALL --mode gpu --gpus 2
REF=$REF32

echo "== 2. compute-sanitizer"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$CS" ]; then
    for tool in memcheck racecheck; do
        $CS --tool $tool --error-exitcode 9 $B/wave2d-cuda modules/wave/cases/small.case --mode gpu --gpus 2 --nt 12 --rec_n 8 > $O/cs_$tool.log 2>&1
        rc=$?; s=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/cs_$tool.log | tail -1)
        [ $rc = 0 ] && row "compute-sanitizer $tool (2 slabs, 12 steps)" "OK ${s}" || { row "compute-sanitizer $tool" "FAILED rc=$rc ${s}"; fails=$((fails+1)); }
    done
else row "compute-sanitizer" "not installed, skipped"; fi

echo "== 3. single-GPU throughput (FP32, layered velocity model, sponge on)"
perf "1 GPU   512^2   (nt 4000)" p512 $B/wave2d-cuda $CASE --mode gpu --gpus 1 --nx 512 --ny 512 --nt 4000 --sponge 20
perf "1 GPU  4096^2   (nt 1000)" p4096 $B/wave2d-cuda $CASE --mode gpu --gpus 1 --nx 4096 --ny 4096 --nt 1000
BEST=tile; BESTC=64
if [ -z "${QUICK:-}" ]; then
    best=0
    for kc in tile:64 tile:32 tile:128 tile256:64 tile256:128 tile64:64 simple:64; do
        k=${kc%:*}; c=${kc#*:}
        perf "1 GPU 16384^2 kernel $k chunk $c (nt 300)" p16k_${k}_$c $B/wave2d-cuda $CASE --mode gpu --gpus 1 --nx 16384 --ny 16384 --nt 300 --kernel $k --chunk $c
        r=$(g p16k_${k}_$c); if awk -v a=$r -v b=$best 'BEGIN{exit !(a>b)}'; then best=$r; BEST=$k; BESTC=$c; fi
    done
    row "best 16384^2 kernel" "$BEST chunk $BESTC"
else
    perf "1 GPU 16384^2 kernel tile (nt 300)" p16k_tile_64 $B/wave2d-cuda $CASE --mode gpu --gpus 1 --nx 16384 --ny 16384 --nt 300
fi
R1=$(g p16k_${BEST}_$BESTC)
row "speed-up vs the seed example at 4096^2 (6.3 Gcells/s)" "$(awk -v r=$(g p4096) 'BEGIN{printf "%.1fx", r/6300}')"
row "speed-up vs the seed example at 16384^2 (24.3 Gcells/s)" "$(awk -v r=$R1 'BEGIN{printf "%.1fx", r/24300}')"
else   # SCALING_ONLY: the 1-GPU baseline of the efficiencies, one kernel
    BEST=${KERNEL:-tile256}; BESTC=${CHUNK:-64}
    perf "1 GPU 16384^2 kernel $BEST chunk $BESTC (nt 300)" p16k_${BEST}_$BESTC $B/wave2d-cuda $CASE --mode gpu --gpus 1 --nx 16384 --ny 16384 --nt 300 --kernel $BEST --chunk $BESTC
    R1=$(g p16k_${BEST}_$BESTC)
fi

if [ "$NG" -ge 2 ] && [ -z "${QUICK:-}" ]; then
    echo "== 4. strong scaling 16384^2 and 32768^2, weak scaling 16384 x 16384*G (kernel $BEST chunk $BESTC);"
    echo "   every multi-GPU run's checksum against the 1-GPU run of the same grid"
    KOPT="--kernel $BEST --chunk $BESTC"
    GS=""; for ((G = 2; G <= NG; G *= 2)); do GS="$GS $G"; done
    case " $GS " in *" $NG "*) ;; *) GS="$GS $NG";; esac
    same1() {  # label log ref-log: the checksum of log equals ref-log's
        local a b; a=$(cks $O/$2.log); b=$(cks $O/$3.log)
        if [ -n "$a" ] && [ "$a" = "$b" ]; then row "  $1: checksum = 1 GPU's" "MATCH"
        else row "  $1: checksum = 1 GPU's" "DIFF (${a:-none} vs ${b:-none})"; fails=$((fails+1)); fi
    }
    for N in 16384 32768; do
        if [ $N = 16384 ]; then REF=p16k_${BEST}_$BESTC; RN=$R1
        else perf "1 GPU ${N}^2 (nt 300)" p${N}_1 $B/wave2d-cuda $CASE --mode gpu --gpus 1 --nx $N --ny $N --nt 300 $KOPT
             REF=p${N}_1; RN=$(g $REF); fi
        for G in $GS; do
            perf "strong $G GPUs single-process ${N}^2" s_sp${N}_$G $B/wave2d-cuda $CASE --mode gpu --gpus $G --nx $N --ny $N --nt 300 $KOPT --profile 1
            grep -A2 '^profile' $O/s_sp${N}_$G.log | sed 's/^/    /'
            row "  efficiency" "$(awk -v r=$(g s_sp${N}_$G) -v b=$RN -v n=$G 'BEGIN{if (b > 0) printf "%.1f %%", 100*r/(n*b); else print "n/a"}')"
            same1 "strong $G single-process ${N}^2" s_sp${N}_$G $REF
            perf "strong $G ranks MPI+NCCL ${N}^2" s_mpi${N}_$G $MPIRUN -np $G $B/wave2d-mpi-cuda $CASE --mode gpu --nx $N --ny $N --nt 300 $KOPT --profile 1
            grep -A2 '^profile' $O/s_mpi${N}_$G.log | sed 's/^/    /'
            row "  efficiency" "$(awk -v r=$(g s_mpi${N}_$G) -v b=$RN -v n=$G 'BEGIN{if (b > 0) printf "%.1f %%", 100*r/(n*b); else print "n/a"}')"
            same1 "strong $G MPI+NCCL ${N}^2" s_mpi${N}_$G $REF
        done
    done
    for G in $GS; do
        NYW=$((16384 * G))
        perf "1 GPU 16384 x $NYW (the weak runs' reference grid)" w_one$G $B/wave2d-cuda $CASE --mode gpu --gpus 1 --nx 16384 --ny $NYW --nt 300 $KOPT
        perf "weak $G GPUs single-process 16384 x $NYW" w_sp$G $B/wave2d-cuda $CASE --mode gpu --gpus $G --nx 16384 --ny $NYW --nt 300 $KOPT
        row "  weak efficiency" "$(awk -v r=$(g w_sp$G) -v b=$R1 -v n=$G 'BEGIN{if (b > 0) printf "%.1f %%", 100*r/(n*b); else print "n/a"}')"
        same1 "weak $G single-process" w_sp$G w_one$G
        perf "weak $G ranks MPI+NCCL 16384 x $NYW" w_mpi$G $MPIRUN -np $G $B/wave2d-mpi-cuda $CASE --mode gpu --nx 16384 --ny $NYW --nt 300 $KOPT
        row "  weak efficiency" "$(awk -v r=$(g w_mpi$G) -v b=$R1 -v n=$G 'BEGIN{if (b > 0) printf "%.1f %%", 100*r/(n*b); else print "n/a"}')"
        same1 "weak $G MPI+NCCL" w_mpi$G w_one$G
    done
    echo "-- overlap on 1 GPU pair, smaller grid (exchange share grows):"
    $B/wave2d-cuda $CASE --mode gpu --gpus 2 --nx 4096 --ny 4096 --nt 500 $KOPT --profile 1 2>&1 | grep -A2 '^profile' | sed 's/^/    /'
fi

echo
echo "================ wave2d device summary ($NG GPU(s)) ================"
cat $TABLE
echo "failures: $fails"
[ $fails -eq 0 ]
