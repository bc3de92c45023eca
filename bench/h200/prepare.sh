#!/usr/bin/env bash
# Stages what bench/h200/run.sh needs on the GPU machine, which has the NVIDIA driver but no
# Vulkan loader, glvnd, FFmpeg or the libraries the binary links: a Release build without
# video I/O, the shared libraries it needs, and Debian's loader packages. Then, with the
# device tool: run `bash bench/h200/run.sh` with carry [".gl", ".gpu"]; results land in $OUT.
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qx '/.gl/' .git/info/exclude || echo /.gl/ >> .git/info/exclude
grep -qx '/.gpu/' .git/info/exclude || echo /.gpu/ >> .git/info/exclude
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFRAMECAST_VIDEO=OFF
cmake --build build-gpu -j"$(nproc)"
mkdir -p .gpu .gl /tmp/amd64/partial
cp build-gpu/framecast build-gpu/tests/vulkan/vulkan_tests .gpu/
libs=$(ldd build-gpu/framecast | awk '/dnnl|gomp|png|jpeg|OpenCL/ {print $3}')
# flat layout: the run script puts these on LD_LIBRARY_PATH under their sonames
rm -rf /tmp/fclibs && mkdir -p /tmp/fclibs && for l in $libs; do cp -L "$l" /tmp/fclibs/; done
tar -cJf .gpu/libs.tar.xz -C /tmp/fclibs .
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
apt-get $o update -qq
(cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 vulkan-validationlayers)
