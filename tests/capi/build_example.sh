#!/bin/sh
# Builds examples/interpolate_pair.c against an installed Framecast as a user would, runs it,
# and checks its images and that the model came from the installed tree.
# Usage: build_example.sh pkg-config|cmake PREFIX EXAMPLES_DIR WORK_DIR EXTRA_CFLAGS
set -eu
method=$1 prefix=$(cd "$2" && pwd -P) examples=$3 work=$4 cflags=$5
rm -rf "$work"
mkdir -p "$work"
case $method in
  pkg-config)
    PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name framecast.pc)")
    export PKG_CONFIG_PATH
    # shellcheck disable=SC2046,SC2086 # pkg-config's and the caller's flags are word lists
    cc -std=c99 -Wall -Wextra -Wpedantic -Werror $cflags "$examples/interpolate_pair.c" \
      $(pkg-config --cflags --libs framecast) -lm \
      -Wl,-rpath,"$(pkg-config --variable=libdir framecast)" -o "$work/interpolate_pair"
    program=$work/interpolate_pair ;;
  cmake)
    cmake -S "$examples" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_C_FLAGS="$cflags" >/dev/null
    cmake --build "$work/build" >/dev/null
    program=$work/build/interpolate_pair ;;
  *) echo "build_example.sh: unknown method '$method'" >&2; exit 2 ;;
esac

"$program" "$work/mid" cpu | tee "$work/log"
grep -q "model $prefix/share/framecast/models/framecast-fast.safetensors\$" "$work/log" ||
  { echo "the model was not found in the installed tree" >&2; exit 1; }
for t in 0.20 0.40 0.50 0.60 0.80; do
  image=$work/mid-$t.ppm
  [ "$(head -c 15 "$image" | tr '\n' ' ')" = "P6 320 180 255 " ] &&
    [ "$(wc -c < "$image")" -eq $((15 + 320 * 180 * 3)) ] ||
    { echo "$image is not a 320x180 PPM" >&2; exit 1; }
done
! cmp -s "$work/mid-0.20.ppm" "$work/mid-0.80.ppm" ||
  { echo "the frames at t = 0.2 and 0.8 are the same" >&2; exit 1; }
