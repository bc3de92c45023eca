# Sourced by the bench/h200 run scripts on the GPU machine (repository root, .gl and the stage
# carried: $STAGE, .gpu unless set): Debian's Vulkan loader and glvnd for the NVIDIA ICD, the
# validation layers, the libraries the binaries link, and the binaries at their build path on
# the build machine.
R=$PWD
stage=${STAGE:-.gpu}
for f in .gl/*.deb; do case "$f" in *validationlayers*) ;; *) dpkg -x "$f" /;; esac; done; ldconfig
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
mkdir -p /tmp/vl /tmp/fclib
# the validation layers travel only when the tree has room for them (run.sh's test step)
for f in .gl/vulkan-validationlayers_*.deb; do [ -e "$f" ] && dpkg -x "$f" /tmp/vl; done
tar -xJf "$stage/libs.tar.xz" -C /tmp/fclib
# Only Framecast's binaries see these (Debian 12's FFmpeg and friends): the machine's own
# Python must keep its own newer libraries.
FCLIBS=/tmp/fclib:/tmp/vl/usr/lib/x86_64-linux-gnu
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export VK_ICD_FILENAMES=$VK_DRIVER_FILES
export VK_LAYER_PATH=/tmp/vl/usr/share/vulkan/explicit_layer.d
# the binaries carry absolute paths of the build machine's checkout
mkdir -p /work && { [ -e /work/main ] || ln -s "$R" /work/main; }
build=$(cat "$stage/build-dir" 2>/dev/null || echo build-gpu)
mkdir -p "$build"
for b in framecast vulkan_tests; do if [ -e "$stage/$b" ]; then cp "$stage/$b" "$build"/; fi; done
# Other builds carried in the stage (a baseline, candidates) find the shipped models beside
# them: a binary looks in its own folder's models/ before its build tree, which was elsewhere.
for d in "$stage"/*/; do [[ -x $d/framecast && ! -e $d/models ]] && ln -s "$R/assets/models" "$d/models"; done
B=$R/$build/framecast
FC="env LD_LIBRARY_PATH=$FCLIBS $B"
FCTESTS="env LD_LIBRARY_PATH=$FCLIBS $R/$build/vulkan_tests"
export XDG_CACHE_HOME=/tmp/fccache
step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
# The staged build's Vulkan tests matching $2 on the NVIDIA driver within $1 seconds, the last
# $3 lines (15) of their output. --gtest_brief prints the summary only at the end, so a run the
# time limit cuts says so instead of printing nothing.
vulkan_tests() {
  timeout "$1" $FCTESTS --gtest_brief=1 --gtest_filter="$2" > /tmp/vulkan_tests.log 2>&1
  local rc=$?
  tail -n "${3:-15}" /tmp/vulkan_tests.log
  if (( rc == 124 )); then
    echo "vulkan_tests: cut at $1 s before the summary: no result ($(grep -c '^\[  FAILED' \
      /tmp/vulkan_tests.log) failures printed by then)"
  fi
}
# The machine and driver, then the staged build's Vulkan tests on it: $TEST_FILTER, else the
# caller's filter ($1), within $2 seconds (150).
machine_and_tests() {
  step setup
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  $FC info | grep -E -m 6 "^Framecast|^\s+\[|uploads and readbacks"
  step "correctness: the staged build's Vulkan tests on the NVIDIA driver"
  vulkan_tests "${2:-150}" "${TEST_FILTER:-$1}"
}
