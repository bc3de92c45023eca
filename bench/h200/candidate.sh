#!/bin/bash
# A candidate model against the shipped one of its tier, on the H200 in one call: issue 17's
# real-time budget (the candidate's GPU time per 1080p mid at most 1.25x the shipped model's,
# measured side by side), where its time goes, and its output on the NVIDIA driver against the
# CPU backend on a real pair.
#
#   bash bench/h200/candidate.sh CANDIDATE.safetensors [SHIPPED_NAME (default fast)]
#
# Needs .gl and .gpu from prepare.sh; carry both and the candidate (an ignored path, e.g.
# .cand/). Output: $OUT/log.txt. When device time is short: TUNE=0 benches both models with
# their untuned kernels (about 80 s less), TEST_FILTER narrows the tests.
set -u
exec > >(tee "$OUT/log.txt") 2>&1
source bench/h200/setup.sh
cand=$R/$1
shipped=${2:-fast}

step setup
date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
$FC info | head -3

if [[ ${TUNE:-1} == 1 ]]; then
  step "tune both, 1920x1080, f16 (pass on: the CLI's default)"
  for m in "$shipped" "$cand"; do timeout 100 $FC tune --model "$m" --size 1920x1080 --precision f16 --show 1; done
fi

step "bench: shipped, candidate, shipped, candidate; device time per mid, pass on, then off"
for lm in on off; do
  for m in "$shipped" "$cand" "$shipped" "$cand"; do
    echo "-- $(basename "$m") --large-motion $lm"
    timeout 60 $FC bench --backend vulkan --model "$m" --precision f16 --large-motion $lm \
      --warmup 5 --runs 30 --size 1920x1080 | grep "mids/s"
  done
done

step "where the candidate's 1080p mid goes (--profile, pass on)"
timeout 60 $FC bench --backend vulkan --model "$cand" --precision f16 --warmup 3 --runs 10 --profile \
  --size 1920x1080

step "the candidate on a real pair (DAVIS, 960x540): Vulkan f16/f32 against the CPU in f32"
for b in "vulkan --precision f16" "vulkan --precision f32" "cpu --precision f32"; do
  n=$(echo "$b" | tr -d ' -')
  timeout 60 $FC pair .gpu/davis_0.png .gpu/davis_2.png -o /tmp/cand-$n.png --model "$cand" --backend $b
done
for p in f16 f32; do
  python3 bench/h200/h200.py compare /tmp/cand-vulkanprecision$p.png /tmp/cand-cpuprecisionf32.png
done

step "correctness: every kernel and refinement-block case on the NVIDIA driver"
vulkan_tests 150 \
  "${TEST_FILTER:-Kernels*:Choices*:Variants*:Cases/*:VulkanRuntime*:LazyMids*:GpuEnsemble*}"

step done
