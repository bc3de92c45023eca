#!/usr/bin/env bash
# Soak test of `framecast interpolate` (issue 20): a long 640x360 video with a sound track, made
# with FFmpeg's lavfi sources (bench/soak_input.sh), doubled in frame rate while resident memory
# is sampled; then three checks:
#   memory  the largest RSS of the run's second half is within MEMORY_SLACK percent (default
#           10) of the largest of its first half (the first 10% of samples, start-up, are left
#           out of both), so memory does not grow with the length of the video;
#   time    every output frame n is at start + n/rate exactly (its pts in the stream's time
#           base is the nearest tick to that time), no frame missing or repeated;
#   sync    the audio and the video end within one output frame of each other.
# Usage: bench/soak.sh [SECONDS (1800)] [MODEL (slim)] [FRAMECAST (build/framecast)]
# Environment: SOAK_BACKEND (cpu), SOAK_INPUT (a video made by soak_input.sh instead of making
# SECONDS of it; the GPU machine has no FFmpeg), FFPROBE (ffprobe), SAMPLE_SECONDS (5),
# MEMORY_SLACK (10), SOAK_DIR (/tmp/framecast-soak: where the files go), SOAK_TIME_LIMIT
# (seconds after which the job is stopped: a GPU machine's call has a time limit). Prints a
# summary; exit status 1 when the run or a check fails.
set -euo pipefail
seconds=${1:-1800}
model=${2:-slim}
framecast=${3:-build/framecast}
backend=${SOAK_BACKEND:-cpu}
ffprobe=${FFPROBE:-ffprobe}
dir=${SOAK_DIR:-/tmp/framecast-soak}
interval=${SAMPLE_SECONDS:-5}
slack=${MEMORY_SLACK:-10}
limit=${SOAK_TIME_LIMIT:-}
mkdir -p "$dir"

input=${SOAK_INPUT:-$dir/in.mp4}
if [ -z "${SOAK_INPUT:-}" ]; then
  echo "making ${seconds}s of 640x360 24 fps video with AAC audio"
  "$(dirname "$0")/soak_input.sh" "$seconds" "$input"
fi

echo "interpolating $input x2 on the $backend backend with the $model model, RSS every ${interval}s"
start=$(date +%s)
"$framecast" interpolate -i "$input" -o "$dir/out.mkv" --factor 2 --backend "$backend" \
  --model "$model" --progress json 2>"$dir/progress.jsonl" &
pid=$!
: >"$dir/rss.tsv"
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$rss" ] && printf '%s\t%s\n' "$(($(date +%s) - start))" "$rss" >>"$dir/rss.tsv"
  if [ -n "$limit" ] && [ $(($(date +%s) - start)) -ge "$limit" ]; then
    echo "stopping the job at the time limit (${limit}s)"
    kill -TERM "$pid"
    limit=
  fi
  sleep "$interval"
done
status=0
wait "$pid" || status=$?
elapsed=$(($(date +%s) - start))
if [ "$status" != 0 ]; then
  echo "FAIL framecast exited with status $status after ${elapsed}s:"
  tail -3 "$dir/progress.jsonl"
  exit 1
fi
# the job's last report: frames, per-stage rates, damaged frames
tail -1 "$dir/progress.jsonl"

# -hide_banner: on the GPU machine, the libraries only the banner calls are stubs (staging.sh)
"$ffprobe" -hide_banner -v error -select_streams v:0 -show_entries stream=time_base,r_frame_rate -show_entries packet=pts \
  -of json "$dir/out.mkv" >"$dir/video.json"
"$ffprobe" -hide_banner -v error -select_streams a:0 -show_entries stream=time_base -show_entries packet=pts,duration \
  -of json "$dir/out.mkv" >"$dir/audio.json"

python3 - "$dir" "$elapsed" "$slack" <<'PY'
import json, sys
from fractions import Fraction

folder, elapsed, slack = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
video, audio = (json.load(open(f"{folder}/{name}.json")) for name in ("video", "audio"))
ok = True

rss = [int(line.split()[1]) for line in open(f"{folder}/rss.tsv")]
steady = rss[len(rss) // 10:]
half = len(steady) // 2
first, second = max(steady[:half]), max(steady[half:])
grew = 100.0 * (second - first) / first
print(f"memory: {len(rss)} samples, peak {max(rss) / 1024:.0f} MiB; max RSS first half "
      f"{first / 1024:.1f} MiB, second half {second / 1024:.1f} MiB ({grew:+.1f}%)")
if grew > slack:
    print(f"FAIL memory grew more than {slack}%")
    ok = False

stream = video["streams"][0]
tb = Fraction(stream["time_base"])
rate = Fraction(stream["r_frame_rate"])
pts = sorted(int(p["pts"]) for p in video["packets"])
start = pts[0] * tb
# The nearest tick to the exact time; a time halfway between two ticks may take either.
wrong = [n for n, p in enumerate(pts) if abs(p * tb - (start + Fraction(n) / rate)) > tb / 2]
print(f"time: {len(pts)} frames at {rate} fps (time base {tb}), {len(wrong)} not at start + n/rate")
if wrong:
    print(f"FAIL frame {wrong[0]} at {pts[wrong[0]] * tb} s")
    ok = False

atb = Fraction(audio["streams"][0]["time_base"])
audio_end = max((int(p["pts"]) + int(p.get("duration", 0))) * atb for p in audio["packets"])
video_end = pts[-1] * tb + 1 / rate
gap = abs(audio_end - video_end)
print(f"sync: video ends at {float(video_end):.4f} s, audio at {float(audio_end):.4f} s, "
      f"{float(gap) * 1000:.1f} ms apart (one frame: {float(1 / rate) * 1000:.1f} ms)")
if gap > 1 / rate:
    print("FAIL audio and video end more than one frame apart")
    ok = False

duration = float(video_end - start)
print(f"throughput: {duration:.0f} s of video in {elapsed} s, {len(pts) / elapsed:.1f} output frames/s")
sys.exit(0 if ok else 1)
PY
