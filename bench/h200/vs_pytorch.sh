#!/bin/bash
# Framecast against PyTorch on the same GPU, in one device call: the shipped fast and quality
# models and the seed's classic graph (C1 120, C2 240, random weights) at 1920x1080, with the
# large-motion pass on and off, through `framecast bench` (Vulkan, tuned, f16) and through the
# project's PyTorch model (bench/h200/vs_pytorch.py: eager, CUDA graph, torch.compile), then
# one table, after the kernel tests on the NVIDIA driver. Needs .gl and .gpu from prepare.sh
# (carry both). Output: $OUT/vs_pytorch.txt, $OUT/table.md, $OUT/torch.json,
# $OUT/framecast.tar.gz, $OUT/tune.fast.txt and tune.quality.txt, and $OUT/inductor.txz
# (PyTorch's compile cache, for the next call's .gpu). Time limits per step:
# TEST_SECONDS (0: no tests; TEST_FILTER picks them), TUNE_SECONDS per model, TORCH_SECONDS
# (0: Framecast's half alone); COMPILE, the models torch.compile runs (NAME:PASS,...). A build
# before a change is benched against the staged one by binary_ab.sh, in the same call if wanted.
set -u
exec > >(tee "$OUT/vs_pytorch.txt") 2>&1
source bench/h200/setup.sh

step setup
date -u; git log -1 --format='commit %H' 2>/dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 bench/h200/h200.py classic /tmp/framecast-classic240.safetensors
models="assets/models/framecast-fast.safetensors assets/models/framecast-quality.safetensors
        /tmp/framecast-classic240.safetensors"

step "correctness: the kernel and runtime tests on the NVIDIA driver (skip: TEST_SECONDS=0)"
[[ ${TEST_SECONDS:-100} != 0 ]] && vulkan_tests "${TEST_SECONDS:-100}" \
  "${TEST_FILTER:-Kernels*:Choices*:Variants*:Cases/*:VulkanRuntime*:TuneCache*}" 25

step "tune (quality's block0 has the classic graph's widths, so its choices serve both)"
# $OUT/tune.M.txt: each problem's best variants with the driver's statistics of their kernels
for m in fast quality; do
  timeout "${TUNE_SECONDS:-120}" $FC tune --model $m --size 1920x1080 --precision f16 --show 8 \
    > "$OUT/tune.$m.txt" 2>&1
  tail -3 "$OUT/tune.$m.txt"
done

step "framecast bench: timed, then again with --profile for the stages"
mkdir -p /tmp/fc
for m in $models; do
  name=$(basename "$m" .safetensors)
  for lm in on off; do
    for kind in timed profile; do
      file=/tmp/fc/$name.$lm.json; extra=
      [[ $kind == profile ]] && file=/tmp/fc/$name.$lm.profile.json extra=--profile
      timeout 60 $FC bench --backend vulkan --model "$m" --precision f16 --large-motion $lm \
        --warmup 5 --runs 20 --size 1920x1080 --json $extra > "$file"
    done
    python3 -c "import json,sys; r=json.load(open(sys.argv[1]))[0]; print(sys.argv[1], r['ms_per_pair'], 'ms')" /tmp/fc/$name.$lm.json
  done
done
# a video's steady state: each pair shares a frame with the one before, one frame uploaded
timeout 60 $FC bench --backend vulkan --model assets/models/framecast-fast.safetensors \
  --precision f16 --large-motion on --warmup 5 --runs 20 --size 1920x1080 --json --stream \
  > /tmp/fc/framecast-fast.on.stream.json
python3 -c "import json,sys; r=json.load(open(sys.argv[1]))[0]; print(sys.argv[1], r['ms_per_pair'], 'ms')" /tmp/fc/framecast-fast.on.stream.json
tar -czf "$OUT/framecast.tar.gz" -C /tmp fc

[[ ${TORCH_SECONDS:-330} == 0 ]] && exit 0  # Framecast's half alone
step "PyTorch (compiles with max-autotune: the classic graph without the pass, fast with it)"
# Inductor's cache, autotune results included, comes back as $OUT/inductor.txz: copied to
# .gpu/inductor.txz it shortens the next call's compiles, which a time limit cuts (on the H100
# in session 26, `fast` with the pass did not finish compiling in 200 s).
export TORCHINDUCTOR_CACHE_DIR=/tmp/inductor
if [[ -f .gpu/inductor.txz ]]; then tar xJf .gpu/inductor.txz -C /tmp; fi
# shellcheck disable=SC2086  # the model list is split on purpose
timeout "${TORCH_SECONDS:-330}" python3 bench/h200/vs_pytorch.py torch "$OUT/torch.json" $models \
  --compile "${COMPILE-framecast-classic240:off,framecast-fast:on}"
if [[ -d /tmp/inductor ]]; then
  tar cf - -C /tmp inductor | xz --lzma2=preset=1,dict=96MiB > "$OUT/inductor.txz"
fi

step table
python3 bench/h200/vs_pytorch.py table "$OUT/torch.json" /tmp/fc | tee "$OUT/table.md"
