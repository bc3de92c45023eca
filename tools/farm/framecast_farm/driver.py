"""Submits the segments of every file to a Dask cluster, collects the parts in order, and
joins each file as soon as its parts are in; a file that fails does not stop the others."""
import shutil
import time
import uuid
from dataclasses import dataclass, field

from distributed import as_completed
from distributed.scheduler import KilledWorker

from framecast_farm import join, plan, probe
from framecast_farm.progress import Progress
from framecast_farm.worker import (EVENTS, PLUGIN, FramecastGPUs, SegmentFailed, SegmentSpec,
                                   plan_parts, run_segment)


@dataclass
class Options:
    framecast: str = "framecast"
    args: list = field(default_factory=list)  # `framecast interpolate` options: --factor 2 ...
    segment_seconds: float = 60.0
    segments: int = 0  # 0: from the duration
    retries: int = 2  # Dask retries of a failed task; a lost worker's is the scheduler's
    backend: str = "auto"  # auto: GPUs when any worker has one, else the CPU


@dataclass
class FileResult:
    input: str
    output: str
    segments: int = 0
    frames: int = 0
    error: str = ""


def part_extension(output):
    """Parts are Matroska, whose timestamps segments keep exactly (an MP4 part's are moved
    by a fraction of a millisecond by the B-frame delay); framecast picks the same codec for
    mkv as for mp4 and mov (H.264), and webm (VP9) is Matroska too."""
    return "webm" if output.suffix.lower() == ".webm" else "mkv"


def uses_gpus(client, backend):
    gpus = sum(w.get("resources", {}).get("GPU", 0)
               for w in client.scheduler_info()["workers"].values())
    if backend == "vulkan" and not gpus:
        raise RuntimeError("--backend vulkan: no worker has a hardware GPU (framecast info)")
    return backend == "vulkan" or (backend == "auto" and gpus > 0)


class _File:
    def __init__(self, job, result):
        self.job, self.result = job, result
        self.work_dir = None
        self.parts = {}  # segment index -> PartResult
        self.futures = []


def run(client, jobs, options, stream, on_event=None):
    """Runs the FileJobs on the client's cluster; returns a FileResult per job, in order.
    on_event(msg) sees every task event (starts and progress) as it arrives."""
    client.register_worker_plugin(FramecastGPUs(options.framecast), name=PLUGIN)
    gpu = uses_gpus(client, options.backend)
    token = uuid.uuid4().hex[:8]
    files, owner = [], {}  # owner: task key -> (file, segment index)
    progress = Progress(stream)

    def on_task_event(event):
        msg = event[1]
        if on_event:
            on_event(msg)
        if msg["key"] not in owner:
            return
        if msg["event"] == "start":
            attempt = progress.started(msg["key"])
            if attempt > 1:
                f, k = owner[msg["key"]]
                progress.print(f"{f.job.input}: segment {k}/{f.result.segments} "
                               f"restarted on {msg['worker']} (attempt {attempt})")
        else:
            progress.report(msg["key"], msg["frames"], msg["total"])

    # Before any task starts: the scheduler does not replay earlier events to a subscriber.
    client.subscribe_topic(EVENTS, on_task_event)
    plans = {}  # file -> future of its parts' output frames, planned where framecast runs
    for job in jobs:
        f = _File(job, FileResult(str(job.input), str(job.output)))
        files.append(f)
        try:
            n = options.segments or plan.segment_count(probe.duration_s(job.input),
                                                       options.segment_seconds)
        except probe.ProbeError as e:
            _fail_file(f, str(e), stream)
            continue
        plans[f] = client.submit(plan_parts, options.framecast, str(job.input),
                                 plan.rate_args(options.args), n, retries=options.retries,
                                 pure=False)
    for i, f in enumerate(files):
        if f not in plans:
            continue
        try:
            parts = plans[f].result()
        except (SegmentFailed, KilledWorker) as e:
            _fail_file(f, f"plan: {e}", stream)
            continue
        n = f.result.segments = len(parts)
        f.work_dir = f.job.output.parent / f".{f.job.output.name}.farm-{token}"
        f.work_dir.mkdir(parents=True)
        progress.add(n)
        for k in range(n):
            spec = SegmentSpec(str(f.job.input), str(f.work_dir / f"part-{k:05d}"),
                               part_extension(f.job.output), k, parts[k], options.framecast, gpu,
                               list(options.args))
            key = f"framecast-{token}-{i}-{k}"
            owner[key] = (f, k)
            # Earlier files first, so finished outputs appear while later ones still run.
            f.futures.append(client.submit(run_segment, spec, key=key, retries=options.retries,
                                           resources={"GPU": 1} if gpu else None,
                                           priority=-i, pure=False))
    try:
        _collect(client, files, owner, progress)
    finally:
        client.unsubscribe_topic(EVENTS)
        for f in files:
            client.cancel([x for x in f.futures if not x.done()])
            if f.work_dir:
                shutil.rmtree(f.work_dir, ignore_errors=True)
    return [f.result for f in files]


def _fail_file(f, error, stream):
    f.result.error = error
    stream.write(f"framecast-farm: {f.job.input}: failed: {error}\n")


def _collect(client, files, owner, progress):
    pending = as_completed([x for f in files for x in f.futures])
    last = time.monotonic()
    while not pending.is_empty():
        time.sleep(0.05)
        for future in pending.next_batch(block=False) if pending.has_ready() else []:
            f, k = owner[future.key]
            if f.result.error or future.status == "cancelled":
                continue
            if future.status == "error":
                _fail(client, f, k, future.exception(), progress)
                continue
            part = future.result()
            f.parts[k] = part
            progress.finished(future.key, part.frames)
            if len(f.parts) == f.result.segments:
                _join(f, progress)
        if time.monotonic() - last >= 1.0 or pending.is_empty():
            progress.print()
            last = time.monotonic()


def _fail(client, f, k, error, progress):
    if isinstance(error, KilledWorker):
        error = (f"lost: the workers running it died more than {error.args[2]} times "
                 "(the scheduler's distributed.scheduler.allowed-failures)")
    f.result.error = f"segment {k}/{f.result.segments}: {error}"
    progress.print(f"{f.job.input}: failed: {f.result.error}")
    client.cancel([x for x in f.futures if not x.done()])
    for x in f.futures:
        if x.status != "finished":
            progress.dropped(x.key)


def _join(f, progress):
    parts = [f.parts[k] for k in range(f.result.segments)]
    frames = sum(p.frames for p in parts)
    try:
        join.join([p.path for p in parts], f.job.input, f.job.output, f.work_dir, frames)
    except (join.JoinError, probe.ProbeError) as e:
        f.result.error = f"joining the parts: {e}"
        progress.print(f"{f.job.input}: failed: {f.result.error}")
        return
    f.result.frames = frames
    progress.print(f"{f.job.input} -> {f.job.output}: {frames} frames from "
                   f"{f.result.segments} segments")
    shutil.rmtree(f.work_dir, ignore_errors=True)
    f.work_dir = None
