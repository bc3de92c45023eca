"""What runs on a Dask worker: its GPUs, from its own `framecast info --json`, a file's plan
(`framecast plan`: where its parts start), and one task per segment, which runs `framecast
interpolate --frames B:E` into a file of its own."""
import json
import os
import subprocess
import threading
import uuid
from dataclasses import dataclass, field

from distributed import WorkerPlugin, get_worker

PLUGIN = "framecast-gpus"
EVENTS = "framecast-farm"  # the Dask event topic of task starts and progress


class SegmentFailed(Exception):
    """framecast failed on the segment or the plan; the message is framecast's own one-line
    error."""


def hardware_gpus(framecast):
    """Indices of the usable hardware GPUs that `framecast info --json` lists here."""
    try:
        r = subprocess.run([framecast, "info", "--json"], capture_output=True, text=True)
    except FileNotFoundError:
        raise RuntimeError(f"{framecast}: not found; give --framecast PATH") from None
    if r.returncode != 0:
        raise RuntimeError(f"{framecast} info --json: " + (r.stderr.strip() or f"exit {r.returncode}"))
    devices = json.loads(r.stdout)["vulkan"]["devices"]
    return [d["index"] for d in devices if d["hardware"] and d["usable"]]


class FramecastGPUs(WorkerPlugin):
    """Declares the worker's GPUs as its Dask resource "GPU" and hands each GPU task a free
    device index. Dask runs at most GPU tasks needing one GPU at a time on the worker, so
    acquire() always finds one. Needs one worker process per host (with --nthreads = GPUs):
    processes on one host would share device indices."""

    name = PLUGIN

    def __init__(self, framecast):
        self.framecast = framecast

    async def setup(self, worker):
        self.free = hardware_gpus(self.framecast)
        self.lock = threading.Lock()
        await worker.set_resources(GPU=len(self.free))

    def acquire(self):
        with self.lock:
            return self.free.pop(0)

    def release(self, device):
        with self.lock:
            self.free.append(device)


@dataclass
class SegmentSpec:
    input: str
    part_stem: str  # the part is PART_STEM.<attempt>.EXT in the job's work folder
    ext: str
    index: int
    frames: str  # the part's output frames, "B:E" or "B:" (framecast plan)
    framecast: str
    gpu: bool  # run on a GPU from the FramecastGPUs pool, else on the CPU backend
    args: list = field(default_factory=list)  # more `framecast interpolate` options


@dataclass
class PartResult:
    path: str
    frames: int  # as framecast's final report counts them


# A worker killed (SIGKILL, a lost node) must not leave framecast running: it would still
# write a part. util-linux's setpriv sets the parent-death signal and execs framecast (no
# preexec_fn, unsafe in the worker's threads); SIGTERM lets framecast remove its temporary
# file. SIGPIPE stays ignored as in Python (restore_signals=False), since a SIGPIPE from its
# progress on the dead worker's pipe would kill it before it could.
DIE_WITH_WORKER = ["setpriv", "--pdeathsig", "TERM"]


def plan_parts(framecast, video, rate_args, count):
    """The "B:E" output frames of `count` parts of the file, from `framecast plan` run where
    the file and framecast are: boundaries just after key frames where one is near."""
    r = subprocess.run([framecast, "plan", "-i", video, *rate_args, "--segments", str(count)],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if r.returncode != 0:
        lines = r.stderr.strip().splitlines()
        raise SegmentFailed(lines[-1] if lines else f"framecast plan exited with {r.returncode}")
    return [part["frames"] for part in json.loads(r.stdout)["parts"]]


def run_segment(spec):
    """Runs one segment. Each attempt writes its own file (framecast writes it under a hidden
    name and renames it when complete), so a lost attempt cannot touch a retry's part."""
    worker = get_worker()
    key = worker.get_current_task()
    part = f"{spec.part_stem}.{uuid.uuid4().hex[:8]}.{spec.ext}"
    pool = worker.plugins[PLUGIN] if spec.gpu else None
    device = pool.acquire() if pool else None
    backend = ["--backend", "vulkan", "--device", str(device)] if pool else ["--backend", "cpu"]
    cmd = [*DIE_WITH_WORKER, spec.framecast, "interpolate", "-i", spec.input, "-o", part,
           "--frames", spec.frames, "--progress", "json", *backend, *spec.args]
    worker.log_event(EVENTS, {"key": key, "event": "start", "worker": worker.address,
                              "pid": os.getpid(), "part": part})
    try:
        frames, error = 0, ""
        with subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, encoding="utf-8", errors="replace",
                              restore_signals=False) as proc:
            for line in proc.stderr:
                try:
                    report = json.loads(line)
                except ValueError:
                    error = line.strip()  # framecast's one-line error comes last
                    continue
                if "frames" in report:
                    frames = report["frames"]
                    worker.log_event(EVENTS, {"key": key, "event": "progress", "frames": frames,
                                              "total": report.get("total")})
        if proc.returncode != 0:
            raise SegmentFailed(error or f"framecast exited with {proc.returncode}")
        return PartResult(part, frames)
    finally:
        if pool:
            pool.release(device)
