#!/bin/bash
# Several training runs side by side, one per GPU, in one device call (repository root, .pool
# carried, results to $OUT):
#
#   KEEP="r5/quality r5/fast" bash tools/train/run_gpus.sh MINUTES \
#       'r5 --model quality=... --resume quality=...' 'abl --model base=... ...'
#
# Job i (its run id, then train.py arguments) runs on GPU i through run_gpu.sh, writing to
# $OUT/RUN_ID/. The device returns at most 8 files, so at the end every log and summary goes
# into $OUT/logs.tar.gz and only the weights named in KEEP (RUN_ID/NAME) stay beside it.
# torch.compile's cache comes back as $OUT/inductor.txz; copied to .pool/inductor.txz (carry it)
# it is used by the next call (compiling the census loss took 159 s of a 10-minute call in
# r29). The cache holds near copies per training shape, so xz with a dictionary larger than
# the cache packs its 88 MB into ~3.6 MB in 2 s (gzip: 13.5 MB, too large beside the clips);
# with two real crop sizes in it (256 and 352 px) it is 5.3 MB.
set -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
MIN=$1
shift
export TORCHINDUCTOR_CACHE_DIR=/tmp/inductor
if [[ -f .pool/inductor.txz ]]; then tar xJf .pool/inductor.txz -C /tmp; fi
gpus=$(nvidia-smi --list-gpus | wc -l)
(( $# <= gpus )) || { echo "$# jobs but $gpus GPUs"; exit 2; }
pids=() runs=()
i=0
for job in "$@"; do
    read -r run args <<<"$job"
    runs+=("$run")
    # shellcheck disable=SC2086  # the job's arguments are split on purpose
    CUDA_VISIBLE_DEVICES=$i OUT="$OUT/$run" bash tools/train/run_gpu.sh "$run" "$MIN" $args \
        > "$OUT/$run.console.log" 2>&1 &
    pids+=($!)
    i=$((i + 1))
done
rc=0
for k in "${!pids[@]}"; do
    wait "${pids[$k]}" || { echo "job ${runs[$k]} failed"; rc=1; }
    tail -n 25 "$OUT/${runs[$k]}.console.log"
done
for f in "$OUT"/*/*.safetensors; do
    [[ " $KEEP " == *" $(basename "$(dirname "$f")")/$(basename "$f" .safetensors) "* ]] || rm -f "$f"
done
(cd "$OUT" && tar czf logs.tar.gz --exclude='*.safetensors' "${runs[@]}" ./*.console.log \
    && rm -rf ./*.console.log && find . -mindepth 2 ! -name '*.safetensors' -type f -delete)
if [[ -d /tmp/inductor ]]; then
    tar cf - -C /tmp inductor | xz --lzma2=preset=1,dict=96MiB > "$OUT/inductor.txz"
fi
exit $rc
