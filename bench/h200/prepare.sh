#!/usr/bin/env bash
# Stages what bench/h200/run.sh and run_tiers.sh need on the GPU machine, which has the NVIDIA
# driver but no Vulkan loader, glvnd, FFmpeg or the libraries the binary links: a Release
# build, every shared library it links but glibc's, Debian's loader packages, a 1080p test
# clip and a real frame pair (staging.sh). Then, with the device tool: run
# `bash bench/h200/run_tiers.sh` (or run.sh) with carry [".gl", ".gpu"] (both in .gitignore);
# results land in $OUT.
set -euo pipefail
cd "$(dirname "$0")/../.."
# BUILD_DIR: an existing Release build with video (e.g. build) saves a second build
build=${BUILD_DIR:-build-gpu}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFRAMECAST_VIDEO=ON
cmake --build "$build" -j"$(nproc)"
source bench/h200/staging.sh
mkdir -p .gpu
cp "$build"/framecast "$build"/tests/vulkan/vulkan_tests .gpu/
echo "$build" > .gpu/build-dir  # the tests look for the binary at its build path
stage_libs .gpu/libs.tar.xz "$build"/framecast "$build"/tests/vulkan/vulkan_tests
# 10 s of 1080p at 23.976 fps with an AAC track (what BENCHMARKS.md's CPU pipeline run used,
# five times longer; CRF 30 to travel in 4 MB), and one DAVIS validation pair
ffmpeg -loglevel error -y -f lavfi -i testsrc2=s=1920x1080:r=24000/1001:d=10.01 -f lavfi \
  -i sine=f=440:d=10.01 -c:v libx264 -crf 30 -pix_fmt yuv420p -c:a aac -shortest .gpu/in1080.mp4
# MULTI_GPU=1: also 4 s of 4K (3.2 MB) for bench/h200/multi_gpu.sh
if [[ ${MULTI_GPU:-0} == 1 ]]; then
  ffmpeg -loglevel error -y -f lavfi -i testsrc2=s=3840x2160:r=24000/1001:d=4 -c:v libx264 \
    -preset veryfast -crf 30 -pix_fmt yuv420p .gpu/in2160.mp4
fi
davis=../shared/data/val/davis/bike-trial
cp "$davis/frame0.png" .gpu/davis_0.png && cp "$davis/frame2.png" .gpu/davis_2.png
stage_loader
