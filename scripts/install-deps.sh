#!/usr/bin/env bash
# Installs everything Framecast needs to build and test, from Debian's packages (idempotent).
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev nlohmann-json3-dev libcli11-dev libpng-dev libjpeg-dev libdnnl-dev
  libvulkan-dev glslc vulkan-validationlayers mesa-vulkan-drivers
  libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libswresample-dev ffmpeg
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-tools
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-base-apps
  python3-torch python3-numpy python3-pil
  python3-distributed
  qemu-user
  clang libclang-rt-14-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
