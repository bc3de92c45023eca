#!/usr/bin/env bash
# Real pipelines through the plugin, run by gst-launch-1.0 (and gst-play-1.0) as a user would,
# their files checked with ffprobe. Usage: pipelines.sh CASE SCRATCH_DIR; GST_PLUGIN_PATH
# names the folder of libgstframecast.so (ctest sets it, and a registry file of its own).
set -euo pipefail
case_name=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
framecast=(framecast backend=cpu model=slim large-motion=false)
source_caps="width=96,height=64,framerate=24/1"

fail() {
  echo "$case_name: $*" >&2
  exit 1
}
launch() { gst-launch-1.0 -q "$@" || fail "gst-launch-1.0 failed: $*"; }
# A file's stream (v or a): its rate and the frames decoded, as "r_frame_rate=R nb_read_frames=N".
expect() {
  local got
  got=$(ffprobe -v error -select_streams "$2" -count_frames \
    -show_entries stream=nb_read_frames,r_frame_rate -of default=nw=1 "$1" | paste -sd' ')
  [ "$got" = "$3" ] || fail "$1: expected $3, got $got"
}
# The end of a stream's last packet in seconds: its timestamp plus its duration.
stream_end() {
  ffprobe -v error -select_streams "$2" -show_entries packet=pts_time,duration_time -of csv=p=0 "$1" |
    awk -F, '{ end = $1 + $2 } END { printf "%.6f", end }'
}
# A 2-second film with a sound track that GStreamer's base and good plugins decode: Motion
# JPEG and FLAC in Matroska, a moving test card.
make_film() {
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=96x64:rate=24" -f lavfi -i "sine=frequency=440:sample_rate=48000" \
    -t 2 -c:v mjpeg -q:v 3 -pix_fmt yuvj420p -c:a flac "$1" || fail "ffmpeg could not make $1"
}

case $case_name in
  double)
    # The issue's pipeline: 24 frames at 24 fps, twice the rate downstream.
    launch videotestsrc num-buffers=24 pattern=ball ! "video/x-raw,$source_caps" ! videoconvert ! \
      "${framecast[@]}" ! video/x-raw,framerate=48/1 ! videoconvert ! y4menc ! filesink location="$dir/out.y4m"
    expect "$dir/out.y4m" v "r_frame_rate=48/1 nb_read_frames=48"
    ;;
  ntsc)
    # 23.976 to 59.94 fps, I420 in and out without a converter, the factor (5/2) from caps.
    launch videotestsrc num-buffers=24 pattern=smpte horizontal-speed=3 ! \
      video/x-raw,format=I420,width=96,height=64,framerate=24000/1001 ! "${framecast[@]}" ! \
      video/x-raw,framerate=60000/1001 ! y4menc ! filesink location="$dir/out.y4m"
    expect "$dir/out.y4m" v "r_frame_rate=60000/1001 nb_read_frames=60"
    ;;
  factor)
    # NV12 through the element at factor 5/2, into Matroska: 1 s of 24 fps becomes 60 frames.
    launch videotestsrc num-buffers=24 pattern=ball ! "video/x-raw,format=NV12,$source_caps" ! \
      "${framecast[@]}" factor=5/2 ! videoconvert ! jpegenc ! matroskamux ! filesink location="$dir/out.mkv"
    expect "$dir/out.mkv" v "r_frame_rate=60/1 nb_read_frames=60"
    end=$(stream_end "$dir/out.mkv" v)
    # Matroska keeps milliseconds.
    awk -v e="$end" 'BEGIN { exit !(e > 0.997 && e < 1.003) }' || fail "the video lasts $end s, not 1"
    ;;
  av-sync)
    # A film with sound, decoded, its video at twice the rate, muxed again with its audio:
    # both streams end within one output frame of each other.
    make_film "$dir/film.mkv"
    launch filesrc location="$dir/film.mkv" ! matroskademux name=d \
      d.video_0 ! queue ! jpegdec ! videoconvert ! "${framecast[@]}" ! videoconvert ! jpegenc ! queue ! mux. \
      d.audio_0 ! queue ! flacparse ! mux. \
      matroskamux name=mux ! filesink location="$dir/out.mkv"
    expect "$dir/out.mkv" v "r_frame_rate=48/1 nb_read_frames=96"
    video=$(stream_end "$dir/out.mkv" v)
    audio=$(stream_end "$dir/out.mkv" a)
    awk -v v="$video" -v a="$audio" 'BEGIN { d = v - a; exit !(d < 1 / 48 && -d < 1 / 48 && v > 1.99) }' ||
      fail "video ends at $video s, audio at $audio s"
    ;;
  play)
    # The README's player command, headless: the film plays in real time to fake sinks that
    # send QoS; it must finish (no stall) without errors.
    make_film "$dir/film.mkv"
    log=$(timeout 60 gst-play-1.0 --no-interactive --audiosink "fakesink sync=true" \
      --videosink "${framecast[*]} ! videoconvert ! fakesink sync=true qos=true" "$dir/film.mkv" 2>&1) ||
      fail "gst-play-1.0 did not finish: $log"
    if grep -qi "error\|warning" <<<"$log"; then fail "$log"; fi
    ;;
  bad-model)
    # A model that is not there: the pipeline fails with the element's one-line reason.
    if log=$(gst-launch-1.0 -q videotestsrc num-buffers=1 ! framecast model=nosuch ! fakesink 2>&1); then
      fail "gst-launch-1.0 succeeded without a model"
    fi
    grep -q "framecast0: no model named 'nosuch'" <<<"$log" || fail "no reason given: $log"
    ;;
  *)
    fail "no such case"
    ;;
esac
