#!/bin/bash
# The soak (bench/soak.sh) on the H200: 30 minutes of 640x360 24 fps video with AAC audio
# (bench/soak_input.sh, made on the build machine), doubled by `framecast interpolate
# --backend vulkan --model fast` into Matroska while RSS is sampled every second; the three
# checks (memory flat, exact timestamps, A/V ends within a frame) run there, where the output
# stays. Needs .gl and .soak from prepare_soak.sh. Output in $OUT: log.txt (everything),
# soak.txt (the checks), rss.tsv, progress.jsonl (the job's first and last reports).
# SOAK_BACKEND, SOAK_MODEL and SOAK_TIME_LIMIT override vulkan, fast and 480 s (a call may
# run 10 minutes); SOAK_BACKEND=cpu tries the script on another machine.
set -u
exec > >(tee "$OUT/log.txt") 2>&1
STAGE=.soak source bench/h200/setup.sh

step setup
date -u; nproc; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
$FC info
# soak.sh starts these by path and samples the RSS of the process it started: wrappers that
# exec, so that only Framecast's binaries see Debian's libraries
mkdir -p /tmp/soakbin
for b in "framecast $B" "ffprobe $R/.soak/ffprobe"; do
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$FCLIBS" "${b#* }" > "/tmp/soakbin/${b%% *}"
done
chmod +x /tmp/soakbin/*

step "soak: .soak/in.mp4 x2, $(/tmp/soakbin/ffprobe -hide_banner -v error -show_entries format=duration -of csv=p=0 .soak/in.mp4) s"
SOAK_DIR=/tmp/soak SOAK_INPUT=.soak/in.mp4 SOAK_BACKEND=${SOAK_BACKEND:-vulkan} \
  FFPROBE=/tmp/soakbin/ffprobe SAMPLE_SECONDS=1 SOAK_TIME_LIMIT=${SOAK_TIME_LIMIT:-480} \
  bench/soak.sh 0 "${SOAK_MODEL:-fast}" /tmp/soakbin/framecast | tee "$OUT/soak.txt"
echo "bench/soak.sh exit status ${PIPESTATUS[0]}"
cp /tmp/soak/rss.tsv "$OUT/"
{ head -1 /tmp/soak/progress.jsonl; tail -1 /tmp/soak/progress.jsonl; } > "$OUT/progress.jsonl"
ls -la /tmp/soak

step done
