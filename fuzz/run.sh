#!/usr/bin/env bash
# Replays each fuzz target's seed corpus, then fuzzes it for SECONDS (default 10) from those
# seeds, so that a parser regression fails CI. Usage: fuzz/run.sh BUILD_DIR [SECONDS [SEED]]
# SEED defaults to 1, so that CI's short run tries the same inputs every time and its verdict
# follows the code, not the draw; explore with a long run and SEED 0 (a fresh seed each run),
# and commit what it finds to the corpus. The corpora are not written to: new inputs go to a
# scratch folder that is thrown away.
set -euo pipefail
build=$1
seconds=${2:-10}
seed=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

for corpus in "$here"/corpus/*/; do
  target=$(basename "$corpus")
  binary=$build/fuzz/$target
  dict=()
  case $target in
    fuzz_safetensors | fuzz_json_bin | fuzz_model_validation) dict=(-dict="$here/safetensors.dict") ;;
    fuzz_tune_cache) dict=(-dict="$here/tune_cache.dict") ;;
    fuzz_video_source) dict=(-dict="$here/video_source.dict") ;;
    fuzz_image) dict=(-dict="$here/image.dict") ;;
  esac
  echo "== $target: replay $(find "$corpus" -type f | wc -l) seeds, then fuzz ${seconds}s"
  # A crash writes its input to the scratch folder; the log names it and CI shows the log. One
  # allocation over 1 GiB fails at once, on replay too, where the RSS check may not come round.
  "$binary" -runs=0 -malloc_limit_mb=1024 "$corpus" 2>"$scratch/$target.log" || { cat "$scratch/$target.log"; exit 1; }
  mkdir -p "$scratch/$target"
  "$binary" "${dict[@]}" -max_total_time="$seconds" -seed="$seed" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -artifact_prefix="$scratch/" -print_final_stats=1 "$scratch/$target" "$corpus" \
    2>"$scratch/$target.log" || { cat "$scratch/$target.log"; exit 1; }
  grep -E '^#[0-9]+[[:space:]]+DONE' "$scratch/$target.log" || true
done
