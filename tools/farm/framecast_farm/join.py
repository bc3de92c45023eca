"""The final mux: the parts' video joined by stream copy, the source's other streams once."""
import os
import re
import subprocess
import uuid
from pathlib import Path

from framecast_farm import probe


class JoinError(Exception):
    """ffmpeg could not join the parts; the message is one line."""


def concat_list(parts):
    """The concat demuxer's list. Each part holds the whole run's timestamps, so a part lasts
    from its first frame to the next part's first frame; a Matroska part's own duration would
    count from 0. The last part needs no duration."""
    starts = [probe.video_start(p) for p in parts]
    lines = []
    for i, part in enumerate(parts):
        lines.append("file '" + str(part).replace("'", "'\\''") + "'")
        if i + 1 < len(parts):
            lines.append(f"duration {float(starts[i + 1] - starts[i]):.9f}")
    return "\n".join(lines) + "\n", starts[0]


def rotation(source):
    """The concat demuxer drops the parts' display matrix (FFmpeg 5.1): set the source's
    again (ffmpeg's `rotate` tag takes ffprobe's angle modulo 360)."""
    degrees = probe.video_rotation(source)
    return ["-metadata:s:v:0", f"rotate={degrees % 360}"] if degrees else []


def join(parts, source, output, work_dir, frames):
    """Writes OUTPUT from the parts (in order) and the source's audio, subtitles, chapters and
    metadata, under a hidden name beside it, renamed into place when complete and holding
    the parts' `frames` video frames: none lost or doubled at a join."""
    output = Path(output)
    listing, start = concat_list(parts)
    list_path = Path(work_dir) / "parts.txt"
    list_path.write_text(listing)
    tmp = output.with_name(f".{output.name}.{uuid.uuid4().hex[:8]}{output.suffix}")
    cmd = ["ffmpeg", "-v", "error", "-nostdin", "-y",
           # ffmpeg starts the source's streams where a whole run's copies start (its first
           # stream at 0); the concat demuxer starts the video at 0, and -itsoffset puts it
           # back at its first frame's time (-output_ts_offset would move the audio too).
           "-itsoffset", f"{float(start):.9f}",
           "-f", "concat", "-safe", "0", "-i", str(list_path), "-i", str(source),
           "-map", "0:v", "-map", "1", "-map", "-1:v", "-map_metadata", "1", "-map_chapters", "1",
           "-c", "copy", *rotation(source), str(tmp)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            # ffmpeg's first error is the cause; the lines after it are consequences.
            lines = r.stderr.strip().splitlines()
            raise JoinError(re.sub(r"^\[\S+ @ 0x[0-9a-f]+\] ", "", lines[0]) if lines
                            else f"ffmpeg exited with {r.returncode}")
        joined = probe.video_frames(tmp)
        if joined != frames:
            raise JoinError(f"the joined video has {joined} frames, the parts {frames}")
        os.replace(tmp, output)
    finally:
        tmp.unlink(missing_ok=True)
