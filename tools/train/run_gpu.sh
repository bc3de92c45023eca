#!/bin/bash
# The one script a device call runs (repository root, .pool carried, results to $OUT):
#
#   bash tools/train/run_gpu.sh RUN_ID MINUTES [train.py arguments...]
#
# e.g. run 1 (from scratch, default + slim on the same batches):
#   bash tools/train/run_gpu.sh r1 7.3 --model default=classic:120:240 --model slim=classic:60:120
# run 2 (resume; copy run 1's NAME.safetensors into .pool/ckpt/ first):
#   bash tools/train/run_gpu.sh r2 6.3 --model default=classic:120:240 \
#       --resume default=.pool/ckpt/default.safetensors --lr 2e-4 --warmup 100 --val-start 1
#
# MINUTES is the training budget; start-up (~0.5 min, ~2.8 min where the census loss compiles
# without a carried cache) and validation come on top, so keep MINUTES about 1.5 below the
# command's time limit, or pass train.py's --wall-minutes (9 in a 10-minute call), which cuts
# the budget when the start runs long. $OUT gets NAME.safetensors (F16 weights +
# metadata, also the resume checkpoint), NAME.log.json, summary.json, train.log, gpu.log.
# With NPROC > 1 (run_ddp.sh sets it) train.py runs data-parallel in NPROC processes.
set -o pipefail
cd "$(dirname "$0")/../.."
export PYTHONPATH=tools${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
OUT=${OUT:-out}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
RUN=$1 MIN=$2
shift 2
"$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'
test -f .pool/manifest.json || { echo "no .pool: run make_pool.py and carry .pool"; exit 2; }
# GPU utilisation every 20 s, to see whether training is GPU- or launch-bound
nvidia-smi ${CUDA_VISIBLE_DEVICES:+-i "$CUDA_VISIBLE_DEVICES"} -l 20 \
    --query-gpu=utilization.gpu,memory.used,power.draw --format=csv,noheader > "$OUT/gpu.log" 2>&1 &
SMI=$!
if (( ${NPROC:-1} > 1 )); then
    TRAIN=("$PY" -m torch.distributed.run --standalone --nproc_per_node "$NPROC")
else
    TRAIN=("$PY")
fi
"${TRAIN[@]}" tools/train/train.py --out "$OUT" --run-id "$RUN" --minutes "$MIN" "$@" 2>&1 \
    | tee "$OUT/train.log"
rc=$?
kill "$SMI" 2>/dev/null
exit $rc
