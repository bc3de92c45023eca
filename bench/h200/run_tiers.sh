#!/bin/bash
# The shipped tiers on the H200, in one go: tuning and benchmarks of the fast, quality and
# slim models, the video pipeline at 1920x1080 2x, then refinement blocks on the NVIDIA driver
# (quality vs the CPU on a real frame pair, the Vulkan tests). Needs .gl and .gpu from
# prepare.sh (with the video build and .gpu/in1080.mp4, .gpu/davis_*.png). Output: $OUT.
# Arguments pick parts (tune bench video ensemble large check); none means all. Timings need
# `tune` first.
set -u
exec > >(tee "$OUT/log.txt") 2>&1
source bench/h200/setup.sh

parts=${*:-tune bench video ensemble large check}
want() { [[ " $parts " == *" $1 "* ]]; }

step setup
date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
$FC info

step "tune: every trunk conv of the shipped models, 1920x1080, f16"
want tune && for m in fast quality slim; do timeout 90 $FC tune --model $m --size 1920x1080 --precision f16 --show 1; done

step "bench: shipped models, tuned, f16, 1920x1080 (1 and 3 mids per pair)"
mkdir -p /tmp/res
want bench && for m in fast quality slim; do
  for k in 1 3; do
    timeout 60 $FC bench --backend vulkan --model $m --precision f16 --mids $k --warmup 3 --runs 10 \
      --profile --size 1920x1080 --size 3840x2160 --json > /tmp/res/${m}_m$k.json
  done
  timeout 60 $FC bench --backend vulkan --model $m --precision f16 --warmup 3 --runs 10 --profile --size 1920x1080
done
want bench && python3 bench/h200/h200.py merge "$OUT/bench.json" /tmp/res/*.json

# The run without --model has been slower than the same work with --model quality in every
# call (77.5 against 112.3 frames/s): it came first, so it may be paying the driver's cold
# shader compiles. It runs both first and after the others, to tell which.
auto_video() {
  step "video: 1920x1080 2x, no --model (interpolate picks the tier), x264 CRF 18 medium ($1)"
  timeout 120 $FC interpolate -i .gpu/in1080.mp4 -o /tmp/auto.mp4 --factor 2 \
    --progress plain 2>/tmp/auto.log && head -2 /tmp/auto.log && tail -1 /tmp/auto.log
}
want video && auto_video first
want video && for m in quality fast; do
  step "video: $m, x264 medium / y4m to a pipe (no encoder)"
  timeout 120 $FC interpolate -i .gpu/in1080.mp4 -o /tmp/$m.mp4 --factor 2 --model $m \
    --backend vulkan --progress json 2>&1 | tail -1
  timeout 120 $FC interpolate -i .gpu/in1080.mp4 -o - --factor 2 --model $m --backend vulkan \
    --progress json 2>/tmp/$m-pipe.log | cat > /dev/null; tail -1 /tmp/$m-pipe.log
done
want video && auto_video "again, after the others"
step "ensemble: 1, 2 and 4 passes, tuned, f16, 1920x1080; then the quality video with 2"
want ensemble && for m in quality fast; do
  for e in 1 2 4; do
    timeout 60 $FC bench --backend vulkan --model $m --precision f16 --ensemble $e --warmup 3 \
      --runs 10 --size 1920x1080 | head -1
  done
done
want ensemble && for o in /tmp/quality-e2.mp4 -; do
  timeout 120 $FC interpolate -i .gpu/in1080.mp4 -o $o --factor 2 --model quality --ensemble 2 \
    --backend vulkan --progress json 2>/tmp/e2.log | cat > /dev/null; tail -1 /tmp/e2.log
done

step "large-motion pass: off and on in one run, tuned, f16, 1080p and 2160p; stages at 1080p"
want large && for m in fast quality; do
  for lm in off on; do
    timeout 60 $FC bench --backend vulkan --model $m --precision f16 --large-motion $lm \
      --warmup 3 --runs 10 --size 1920x1080 --size 3840x2160 | grep mids/s
  done
  timeout 60 $FC bench --backend vulkan --model $m --precision f16 --warmup 3 --runs 10 --profile \
    --size 1920x1080 | grep -E "mids/s|half|scale_choice|flow_field|deconv|flow_out"
done

step "quality and fast on a real pair (DAVIS, 960x540): Vulkan f16/f32 vs the CPU in f32"
# The CPU pinned to f32: on a CPU with bfloat16 instructions, auto would pick bf16, which
# differs by design.
want check && for m in quality fast; do
  for b in "vulkan --precision f16" "vulkan --precision f32" "cpu --precision f32"; do
    n=$(echo "$b" | tr -d ' -')
    timeout 60 $FC pair .gpu/davis_0.png .gpu/davis_2.png -o /tmp/$m-$n.png --model $m --backend $b
  done
  for p in f16 f32; do python3 bench/h200/h200.py compare /tmp/$m-vulkanprecision$p.png /tmp/$m-cpuprecisionf32.png; done
done

step "correctness: refinement blocks and every kernel choice on the NVIDIA driver"
want check && vulkan_tests 200 \
  'Kernels*:Choices*:Variants*:Cases/*:VulkanRuntime*:LazyMids*:Tuner*:GpuEnsemble*' 25

step done
