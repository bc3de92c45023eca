#!/usr/bin/env bash
# Stages the soak (bench/soak.sh) for the GPU machine, which has no FFmpeg: an existing Release
# build's framecast, Debian's ffprobe (for the checks), the libraries both link (staging.sh),
# the loader packages, and the 30-minute input made here (bench/soak_input.sh; kept when it
# is already there). Then, with the device tool: `bash bench/h200/soak.sh` with carry
# [".gl", ".soak"]; results land in $OUT. The tree must stay within a call's 64 MiB.
# Usage: BUILD_DIR=build bench/h200/prepare_soak.sh [SECONDS (1800)]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
seconds=${1:-1800}
[ -x "$build/framecast" ] || { echo "no $build/framecast: build Release with video first"; exit 1; }
source bench/h200/staging.sh
mkdir -p .soak
cp "$build/framecast" "$(command -v ffprobe)" .soak/
echo "$build" > .soak/build-dir
stage_libs .soak/libs.tar.xz "$build/framecast" .soak/ffprobe
duration=$(ffprobe -v error -show_entries format=duration -of csv=p=0 .soak/in.mp4 2>/dev/null || true)
if [ "${duration%.*}" != "$seconds" ]; then bench/soak_input.sh "$seconds" .soak/in.mp4; fi
stage_loader
tree=$( (git ls-files -z; find .gl .soak -type f -print0) | du --files0-from=- -cb | tail -1 | cut -f1)
echo "tree with .gl and .soak: $((tree / 1024 / 1024)) MiB of 64"
[ "$tree" -le $((64 * 1024 * 1024)) ]
