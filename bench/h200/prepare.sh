#!/usr/bin/env bash
# Stages what bench/h200/run.sh and run_tiers.sh need on the GPU machine, which has the NVIDIA
# driver but no Vulkan loader, glvnd, FFmpeg or the libraries the binary links: a Release
# build, every shared library it links but glibc's, Debian's loader packages, a 1080p test
# clip and a real frame pair. Then, with the device tool: run `bash bench/h200/run_tiers.sh`
# (or run.sh) with carry [".gl", ".gpu"]; results land in $OUT.
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qx '/.gl/' .git/info/exclude || echo /.gl/ >> .git/info/exclude
grep -qx '/.gpu/' .git/info/exclude || echo /.gpu/ >> .git/info/exclude
# BUILD_DIR: an existing Release build with video (e.g. build) saves a second build
build=${BUILD_DIR:-build-gpu}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFRAMECAST_VIDEO=ON
cmake --build "$build" -j"$(nproc)"
mkdir -p .gpu .gl /tmp/amd64/partial
cp "$build"/framecast "$build"/tests/vulkan/vulkan_tests .gpu/
echo "$build" > .gpu/build-dir  # the tests look for the binary at its build path
# glibc stays the machine's own (its newer one runs Debian 12's binaries; mixing parts does not)
libs=$(ldd "$build"/framecast "$build"/tests/vulkan/vulkan_tests | awk '$3 ~ /^\// {print $3}' |
       grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux-x86-64)\.so' | sort -u)
# flat layout: the run script puts these on LD_LIBRARY_PATH under their sonames
rm -rf /tmp/fclibs && mkdir -p /tmp/fclibs && for l in $libs; do cp -L "$l" /tmp/fclibs/; done
# A call's tree is limited to 64 MiB. Libraries FFmpeg links but no benchmark calls (ICU's
# data; AV1, HEVC, codec2, SVG and teletext codecs; network protocols) travel as stubs with the
# same soname and symbols: the libraries are bound at load (BIND_NOW), so every symbol must
# exist; none has versioned symbols, which a stub would lack. Stub functions return 0. The
# libraries that demuxer probes call on every input (libgme, libopenmpt) travel whole.
stub_library() {
  local lib=/tmp/fclibs/$1 soname
  soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  if readelf -V "$lib" | grep -q 'Version definition'; then echo "$1 has versioned symbols"; exit 1; fi
  nm -D --defined-only -S "$lib" | awk '
    $3 ~ /^[TtWiI]$/ { print "long " $4 "(void) { return 0; }" }
    $3 ~ /^[RrDdBbV]$/ { print "char " $4 "[0x" $2 "];" }' > /tmp/stub.c
  gcc -shared -fPIC -o "$lib" /tmp/stub.c -Wl,-soname,"$soname"
}
for l in libicudata.so.72 libcodec2.so.1.0 librsvg-2.so.2 libSvtAv1Enc.so.1 libaom.so.3 \
         libx265.so.199 librav1e.so.0 libdav1d.so.6 libzmq.so.5 libsrt-gnutls.so.1.5 \
         libbluray.so.2 librabbitmq.so.4 libzvbi.so.0; do
  stub_library $l
done
# what the stubs no longer pull in stays behind
keep=$(LD_LIBRARY_PATH=/tmp/fclibs ldd "$build"/framecast "$build"/tests/vulkan/vulkan_tests |
       awk '$3 ~ /^\/tmp\/fclibs\// {print $3}' | sort -u)
for l in /tmp/fclibs/*; do grep -qx "$l" <<< "$keep" || rm "$l"; done
tar -cJf .gpu/libs.tar.xz -C /tmp/fclibs .
# 10 s of 1080p at 23.976 fps with an AAC track (what BENCHMARKS.md's CPU pipeline run used,
# five times longer; CRF 30 to travel in 4 MB), and one DAVIS validation pair
ffmpeg -loglevel error -y -f lavfi -i testsrc2=s=1920x1080:r=24000/1001:d=10.01 -f lavfi \
  -i sine=f=440:d=10.01 -c:v libx264 -crf 30 -pix_fmt yuv420p -c:a aac -shortest .gpu/in1080.mp4
davis=../shared/data/val/davis/bike-trial
cp "$davis/frame0.png" .gpu/davis_0.png && cp "$davis/frame2.png" .gpu/davis_2.png
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
apt-get $o update -qq
(cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
