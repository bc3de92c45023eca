#!/usr/bin/env bash
# The soak's input (bench/soak.sh): SECONDS of 640x360 24 fps testsrc2 with a 440 Hz AAC track
# (48 kHz, mono), made with FFmpeg's lavfi sources. The bit rates are low so that 30 minutes
# (8.7 MB) travel to the GPU machine with the binary and its libraries; what the soak checks
# (memory, timestamps, sync) does not depend on the picture's quality.
# Usage: bench/soak_input.sh SECONDS OUTPUT
set -euo pipefail
ffmpeg -v error -nostdin -y -f lavfi -i "testsrc2=size=640x360:rate=24" \
  -f lavfi -i "sine=frequency=440:sample_rate=48000" -t "$1" \
  -c:v libx264 -preset veryfast -b:v 16k -g 240 -pix_fmt yuv420p -c:a aac -b:a 16k -ac 1 "$2"
