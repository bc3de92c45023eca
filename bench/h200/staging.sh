# Sourced by the bench/h200 prepare scripts (on the Debian build machine, repository root): what
# the GPU machine lacks, staged to travel in a device call's tree, which is limited to 64 MiB.

# stage_libs TAR BINARY...: every shared library the binaries link but glibc's, in a flat
# tar.xz that setup.sh unpacks onto the binaries' LD_LIBRARY_PATH (glibc stays the machine's
# own: its newer one runs Debian 12's binaries; mixing parts does not).
stage_libs() {
  local tar=$1 libs keep l dir
  shift
  dir=$(mktemp -d)  # private: other sessions stage on this machine too
  libs=$(ldd "$@" | awk '$3 ~ /^\// {print $3}' |
         grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux-x86-64)\.so' | sort -u)
  for l in $libs; do cp -L "$l" "$dir"/; done
  # Libraries FFmpeg links but no benchmark calls (ICU's data; AV1, HEVC, codec2, SVG and
  # teletext codecs; network protocols; and, for ffprobe, the device, filter and
  # post-processing libraries only its banner and listing options call) travel as stubs. The
  # libraries that demuxer probes call on every input (libgme, libopenmpt) travel whole.
  for l in libicudata.so.72 libcodec2.so.1.0 librsvg-2.so.2 libSvtAv1Enc.so.1 libaom.so.3 \
           libx265.so.199 librav1e.so.0 libdav1d.so.6 libzmq.so.5 libsrt-gnutls.so.1.5 \
           libbluray.so.2 librabbitmq.so.4 libzvbi.so.0 libavdevice.so.59 libavfilter.so.8 \
           libpostproc.so.56; do
    if [ -e "$dir/$l" ]; then stub_library "$dir/$l"; fi
  done
  # what the stubs no longer pull in stays behind
  keep=$(LD_LIBRARY_PATH=$dir ldd "$@" | awk -v d="$dir/" 'index($3, d) == 1 {print $3}' | sort -u)
  for l in "$dir"/*; do grep -qx "$l" <<< "$keep" || rm "$l"; done
  tar -cJf "$tar" -C "$dir" . && rm -r "$dir"
}

# stub_library LIB: replaces LIB by a library with the same soname and symbols whose functions
# return 0. The libraries are bound at load (BIND_NOW), so every symbol must exist, under its
# version where the library defines one (FFmpeg's define one each: LIBAVFILTER_8, ...).
stub_library() {
  local lib=$1 soname versions src map=()
  soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  versions=$(readelf -V "$lib" | sed -n 's/.*Flags: none .*Name: \(.*\)/\1/p')
  if [ "$(wc -w <<< "$versions")" -gt 1 ]; then echo "$lib defines several versions"; return 1; fi
  src=${lib%/*}/stub
  if [ -n "$versions" ]; then
    echo "$versions { global: *; };" > "$src.map" && map=(-Wl,--version-script="$src.map")
  fi
  nm -D --defined-only -S "$lib" | awk '
    { sub(/@.*/, "", $4) }
    $3 ~ /^[TtWiI]$/ { print "long " $4 "(void) { return 0; }" }
    $3 ~ /^[RrDdBbV]$/ { print "char " $4 "[0x" $2 "];" }' > "$src.c"
  gcc -shared -fPIC -o "$lib" "$src.c" -Wl,-soname,"$soname" "${map[@]}"
  rm -f "$src.c" "$src.map"
}

# stage_loader: Debian's Vulkan loader and glvnd (the NVIDIA ICD needs them) into .gl.
stage_loader() {
  local lists o
  lists=$(mktemp -d) && mkdir "$lists/partial"
  o="-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=$lists"
  mkdir -p .gl
  apt-get $o update -qq
  (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
  rm -r "$lists"
}
