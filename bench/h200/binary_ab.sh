#!/bin/bash
# Builds of Framecast against each other on the H200 in one call, for kernel work: the build
# prepare.sh staged ("new"), a baseline binary at .gpu/base/framecast (e.g. main's, built
# before the change; it uses the same libraries) and any further candidates at
# .gpu/cand-NAME/framecast. Each build tunes into its own cache and shows its best variants
# per trunk plane with the driver's statistics; then all bench each model in turn, twice, each
# build's 1080p mid is profiled, and the staged build's Vulkan kernel and runtime tests run on
# the NVIDIA driver.
#
#   bash bench/h200/binary_ab.sh [MODEL...]   (default: fast quality)
#
# Carry .gl and .gpu (prepare.sh, then copy the baseline binary in). Output: $OUT/log.txt.
set -u
exec > >(tee "$OUT/log.txt") 2>&1
source bench/h200/setup.sh
models=${*:-fast quality}
builds=(base)
for d in .gpu/cand-*/; do [[ -x $d/framecast ]] && builds+=("$(basename "$d")"); done
builds+=(new)
build_of() {
  if [[ $1 == new ]]; then echo "$FC"; return; fi
  echo "env LD_LIBRARY_PATH=$FCLIBS XDG_CACHE_HOME=/tmp/fccache-$1 $R/.gpu/$1/framecast"
}

machine_and_tests "Kernels*:Choices*:Variants*:Scales*:Golden*:Cases*:Depths*:VulkanRuntime*:LazyMids*"

for which in "${builds[@]}"; do
  for m in $models; do
    step "tune $m with the $which build, 1920x1080, f16"
    timeout 120 $(build_of $which) tune --model "$m" --size 1920x1080 --precision f16 --show 4
  done
done

step "bench: every build in turn, twice; device time per 1080p mid, pass on"
for m in $models; do
  for which in "${builds[@]}" "${builds[@]}"; do
    echo "-- $m $which"
    timeout 60 $(build_of $which) bench --backend vulkan --model "$m" --precision f16 \
      --warmup 5 --runs 30 --size 1920x1080 | grep "mids/s"
  done
done

for which in "${builds[@]}"; do
  step "where fast's 1080p mid goes with the $which build (--profile, pass on)"
  timeout 60 $(build_of $which) bench --backend vulkan --model fast --precision f16 --warmup 3 \
    --runs 10 --profile --size 1920x1080
done
step done
