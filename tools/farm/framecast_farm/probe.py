"""What the driver needs to know about a file, from Debian's ffprobe."""
import json
import subprocess
from fractions import Fraction


class ProbeError(Exception):
    """ffprobe could not read the file; the message is one line."""


def _probe(path, *args):
    r = subprocess.run(["ffprobe", "-v", "error", "-of", "json", *args, str(path)],
                       capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    if r.returncode != 0:
        raise ProbeError(lines[-1] if lines else f"ffprobe exited with {r.returncode}")
    return json.loads(r.stdout)


def duration_s(path):
    """The file's declared duration in seconds: what `--segment` cuts by."""
    info = _probe(path, "-show_entries", "format=duration:stream=codec_type")
    if not any(s.get("codec_type") == "video" for s in info.get("streams", [])):
        raise ProbeError(f"{path}: has no video stream")
    try:
        return float(info["format"]["duration"])
    except (KeyError, ValueError):
        raise ProbeError(f"{path}: its duration is unknown, so it cannot be cut into segments")


def video_start(path):
    """The first video frame's time, exact as the container stores it (a decimal string)."""
    info = _probe(path, "-select_streams", "v:0", "-show_entries", "stream=start_time")
    streams = info.get("streams", [])
    if not streams or "start_time" not in streams[0]:
        raise ProbeError(f"{path}: no video start time")
    return Fraction(streams[0]["start_time"])


def video_frames(path):
    """The number of video packets: one per frame for the codecs framecast writes."""
    info = _probe(path, "-select_streams", "v:0", "-count_packets",
                  "-show_entries", "stream=nb_read_packets")
    return int(info["streams"][0]["nb_read_packets"])


def video_rotation(path):
    """The video's display rotation in degrees, as ffprobe reports it (0: none)."""
    info = _probe(path, "-select_streams", "v:0", "-show_entries", "stream_side_data=rotation")
    for stream in info.get("streams", []):
        for side in stream.get("side_data_list", []):
            if "rotation" in side:
                return int(side["rotation"])
    return 0
