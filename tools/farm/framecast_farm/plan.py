"""Which files a submission holds, where each goes, and how many segments each is cut into."""
from dataclasses import dataclass
from pathlib import Path

# What a folder's videos are recognised by; other files (subtitles, notes) are left alone.
VIDEO_EXTENSIONS = {".mkv", ".mp4", ".mov", ".webm", ".m4v", ".avi", ".ts", ".mts", ".m2ts",
                    ".mxf", ".mpg", ".mpeg", ".flv", ".wmv", ".y4m", ".nut"}
# Containers the parts can be joined in by stream copy; framecast picks the codec from them.
JOINABLE = {".mkv", ".mp4", ".mov", ".webm"}


@dataclass
class FileJob:
    input: Path
    output: Path
    segments: int = 0  # set once the file is probed


def rate_args(args):
    """The output rate options (--factor F or --fps R, either spelling) among framecast
    interpolate's `args`: what `framecast plan` needs of them."""
    picked = []
    for i, arg in enumerate(args):
        if arg in ("--factor", "--fps") and i + 1 < len(args):
            picked += [arg, args[i + 1]]
        elif arg.startswith(("--factor=", "--fps=")):
            picked.append(arg)
    return picked


def segment_count(duration_s, segment_s):
    """Segments of about segment_s seconds of input; at least one."""
    return max(1, round(duration_s / segment_s))


def file_jobs(source, destination, container=None):
    """A file and its output file, or every video of a folder (sorted) into a folder, under
    its own name with the extension `container` (default: its own when joinable, else mkv).
    Paths are absolute: workers run elsewhere, and ffmpeg's concat list is read from its own
    folder."""
    source, destination = Path(source).absolute(), Path(destination).absolute()
    if not source.exists():
        raise ValueError(f"{source}: no such file or folder")
    if not source.is_dir():
        if destination.is_dir():
            return _checked([FileJob(source, destination / _name(source, container))])
        if destination.suffix.lower() not in JOINABLE:
            raise ValueError(f"{destination}: write .mkv, .mp4, .mov or .webm (the parts are "
                             "joined by stream copy)")
        return _checked([FileJob(source, destination)])
    if destination.exists() and not destination.is_dir():
        raise ValueError(f"{destination}: the output of a folder must be a folder")
    videos = sorted(p for p in source.iterdir()
                    if p.is_file() and not p.name.startswith(".")
                    and p.suffix.lower() in VIDEO_EXTENSIONS)
    if not videos:
        raise ValueError(f"{source}: holds no video files")
    return _checked([FileJob(v, destination / _name(v, container)) for v in videos])


def _checked(jobs):
    """Refuses a job that would replace an input or another job's output."""
    inputs = {job.input.resolve() for job in jobs}
    outputs = {}
    for job in jobs:
        out = job.output.resolve()
        if out in inputs:
            raise ValueError(f"{job.output}: is an input; choose another output name")
        if out in outputs:
            raise ValueError(f"{outputs[out].input} and {job.input} would both be written to "
                             f"{job.output}; give --container or another folder")
        outputs[out] = job
    return jobs


def _name(video, container):
    ext = container or (video.suffix.lower() if video.suffix.lower() in JOINABLE else ".mkv")
    return video.stem + (ext if ext.startswith(".") else "." + ext)
