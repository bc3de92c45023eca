#!/bin/bash
# Issue 21's measurements in one call on a machine of several GPUs (nvidia-h200-x2, -x4, -x8):
#   1. `framecast bench` of `quality` at 3840x2160 on 1, 2, 4 and 8 GPUs (as many as there are):
#      each engine's device time and the devices' total mids/s;
#   2. `framecast interpolate` of a 4K clip, 2x, `quality` with the ensemble of ENSEMBLE passes
#      (default 2), into a pipe, on the same device counts: output frames/s end to end, the
#      stages' rates, and the output's checksum, which must not depend on the device count;
#   3. with .pool carried, data-parallel training (tools/train/run_ddp.sh) on 1 GPU and on all:
#      samples/s and the loss at equal samples, from their logs.
# Needs .gl and .gpu from `MULTI_GPU=1 bash bench/h200/prepare.sh` (which adds .gpu/in2160.mp4).
# Output: $OUT/log.txt, and $OUT/train.tgz with the training logs.
set -u
exec > >(tee "$OUT/log.txt") 2>&1
source bench/h200/setup.sh
gpus=$(nvidia-smi --list-gpus | wc -l)
ensemble=${ENSEMBLE:-2}
counts=()
for n in 1 2 4 8; do (( n <= gpus )) && counts+=("$n"); done
device_list() { seq -s, 0 $(($1 - 1)); }

step setup
date -u; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
$FC info | sed -n '/^--device all/p'

step "tune quality at 3840x2160, f16 (identical GPUs share one tuned entry)"
timeout 150 $FC tune --model quality --size 3840x2160 --precision f16 --device 0 | grep best

step "bench: quality, 3840x2160, f16, device time per engine and the devices' total"
for n in "${counts[@]}"; do
  echo "-- $n GPU(s)"
  timeout 90 $FC bench --backend vulkan --device "$(device_list "$n")" --model quality \
    --precision f16 --warmup 3 --runs 20 --size 3840x2160 | grep -o '[0-9.]* mids/s.*\|devices:.*'
done

step "interpolate: .gpu/in2160.mp4 2x, quality --ensemble $ensemble, f16, y4m into a pipe"
for n in "${counts[@]}"; do
  echo "-- $n GPU(s)"
  timeout 150 $FC interpolate -i .gpu/in2160.mp4 -o - --factor 2 --model quality \
    --ensemble "$ensemble" --precision f16 --backend vulkan --device "$(device_list "$n")" \
    --progress json 2>/tmp/interp$n.log | md5sum
  tail -n 1 /tmp/interp$n.log
done

if [[ -f .pool/manifest.json ]]; then
  # the same synthetic recipe on 1 GPU and on all: samples/s, and the loss at equal samples
  args=(--model fast=tfact2:120:240 --lr 1e-4 --warmup 50 --seed 21 --size 256 --val none
        --log-every 100)
  step "training: 1 GPU, 1.5 min"
  CUDA_VISIBLE_DEVICES=0 OUT=/tmp/train1 NPROC=1 bash tools/train/run_ddp.sh ddp1 1.5 "${args[@]}" \
    | grep -E 'samples|^\[fast\] step'
  step "training: $gpus GPUs, 1.5 min"
  OUT=/tmp/train$gpus bash tools/train/run_ddp.sh ddp$gpus 1.5 "${args[@]}" \
    | grep -E 'samples|^\[fast\] step'
  tar czf "$OUT/train.tgz" -C /tmp --exclude='*.safetensors' train1 "train$gpus"
fi
step done
