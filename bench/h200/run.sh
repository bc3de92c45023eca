#!/bin/bash
# Framecast's Vulkan backend on the H200, in one go: loader, correctness against the CPU,
# tuning, benchmarks. Everything it prints lands in $OUT/log.txt; JSON results beside it.
set -u
exec > >(tee "$OUT/log.txt") 2>&1
source bench/h200/setup.sh

step setup
date -u; uname -r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
$FC info
$FC info | grep -q "  none:" && { cat "$VK_DRIVER_FILES"; VK_LOADER_DEBUG=error,warn,driver $FC info 2>&1 | head -30; }

step "correctness 1: the Vulkan test suite on the NVIDIA driver, validation layers on"
vulkan_tests 150 \
  'Kernels*:Choices*:Variants*:Cases/*:Sizes/*:Depths*:VulkanRuntime*:Tuner*:TuneCache*' 60

step "correctness 2: framecast pair, default model, 1920x1080, Vulkan f32/f16 vs the CPU"
cd /tmp
python3 "$R/bench/h200/h200.py" frames /tmp/p8_ 1920 1080 8
python3 "$R/bench/h200/h200.py" frames /tmp/p16_ 1920 1080 16
for d in 8 16; do
  for b in "vulkan --precision f32" "vulkan --precision f16" "cpu"; do
    n=$(echo "$b" | tr -d ' -')
    timeout 60 $FC pair /tmp/p${d}_0.png /tmp/p${d}_1.png -o /tmp/out${d}_$n.png -t 0.5 --backend $b
  done
  python3 "$R/bench/h200/h200.py" compare /tmp/out${d}_vulkanprecisionf32.png /tmp/out${d}_cpu.png
  python3 "$R/bench/h200/h200.py" compare /tmp/out${d}_vulkanprecisionf16.png /tmp/out${d}_cpu.png
done
cd "$R"

step "tune: trunk conv variants, C2=240, three sizes, f16 and f32"
timeout 150 $FC tune --size 1280x720 --size 1920x1080 --size 3840x2160 --show 6
cp /tmp/fccache/framecast/tune.json "$OUT/tune.json" 2>/dev/null

step "bench: classic 240 (random weights), tuned"
mkdir -p /tmp/res
for p in f16 f32; do
  for m in 1 3; do
    timeout 90 $FC bench --backend vulkan --precision $p --mids $m --warmup 3 --runs 10 --profile \
      --size 1280x720 --size 1920x1080 --size 3840x2160 --json > "/tmp/res/classic_${p}_m$m.json"
  done
done
python3 bench/h200/h200.py merge "$OUT/bench.json" /tmp/res/*.json && python3 bench/h200/h200.py table "$OUT/bench.json" classic
for p in f16 f32; do
  timeout 60 $FC bench --backend vulkan --precision $p --warmup 3 --runs 10 --profile --size 1920x1080
done

step "bench: the default choice without the tuning cache, 1080p"
XDG_CACHE_HOME=/tmp/empty timeout 60 $FC bench --backend vulkan --precision f16 --warmup 3 --runs 10 --size 1920x1080
XDG_CACHE_HOME=/tmp/empty timeout 60 $FC bench --backend vulkan --precision f32 --warmup 3 --runs 10 --size 1920x1080

step "bench: tfact2 240 (random weights), trunk once per pair"
timeout 90 python3 bench/h200/h200.py tfact2 /tmp/tfact2.safetensors; ls -la /tmp/tfact2.safetensors
for p in f16 f32; do
  for m in 1 3; do
    timeout 90 $FC bench --backend vulkan --model /tmp/tfact2.safetensors --precision $p --mids $m \
      --warmup 3 --runs 10 --profile --size 1280x720 --size 1920x1080 --size 3840x2160 --json \
      > "/tmp/res/tfact2_${p}_m$m.json"
  done
done
python3 bench/h200/h200.py merge "$OUT/bench.json" /tmp/res/*.json && python3 bench/h200/h200.py table "$OUT/bench.json" tfact2
timeout 60 $FC bench --backend vulkan --model /tmp/tfact2.safetensors --precision f16 --mids 3 --warmup 3 --runs 10 --profile --size 1920x1080

step done
sleep 1
