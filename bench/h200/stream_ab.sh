#!/bin/bash
# A video's pairs with the staged build ("new", prepare.sh) against a baseline binary at
# .gpu/base/framecast, for changes on the host side of the pipeline (uploads, readbacks,
# overlapping pairs), where kernels and so the tuning are the same: one tune, shared. Runs the
# staged build's runtime tests on the NVIDIA driver, then alternates the builds on `bench
# --stream` (device and wall time per pair) and on `interpolate` 1080p 2x into a pipe
# (frames/s end to end and per stage), and checks that both builds write the same bytes.
#
#   bash bench/h200/stream_ab.sh [MODEL...]   (default: fast quality)
#
# Carry .gl and .gpu (prepare.sh, then copy the baseline binary to .gpu/base/). Output:
# $OUT/log.txt. With BASE_ENV set (e.g. BASE_ENV=FRAMECAST_VULKAN_COPY_QUEUE=compute) the
# baseline is the staged build itself run with that environment, and needs no base binary.
set -u
exec > >(tee "$OUT/log.txt") 2>&1
source bench/h200/setup.sh
models=${*:-fast quality}
build_of() {
  if [[ $1 == new ]]; then echo "$FC"
  elif [[ -n ${BASE_ENV:-} ]]; then echo "env $BASE_ENV $FC"
  else echo "env LD_LIBRARY_PATH=$FCLIBS $R/.gpu/base/framecast"; fi
}

machine_and_tests "VulkanRuntime*:GpuEnsemble*:LazyMids*:Golden*" 120

for m in $models; do
  step "tune $m, 1920x1080, f16 (shared by both builds)"
  timeout 90 $FC tune --model "$m" --size 1920x1080 --precision f16
done

step "bench --stream: base and new in turn, twice; per pair, 1 mid, pass on"
for m in $models; do
  for size in 1920x1080 3840x2160; do
    for which in base new base new; do
      echo "-- $m $size $which"
      timeout 60 $(build_of $which) bench --backend vulkan --model "$m" --precision f16 --stream \
        --warmup 10 --runs 100 --size "$size" | grep "mids/s"
    done
  done
done

step "interpolate 1920x1080 2x into a pipe: base and new in turn, twice"
for m in $models; do
  for which in base new base new; do
    echo "-- $m $which"
    timeout 120 $(build_of $which) interpolate -i .gpu/in1080.mp4 -o - --factor 2 --model "$m" \
      --backend vulkan --progress json 2>/tmp/pipe.log | md5sum; tail -1 /tmp/pipe.log
  done
done
step done
