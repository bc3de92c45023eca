"""framecast-farm: the command line."""
import argparse
import logging
import shutil
import signal
import sys

import dask
from distributed import Client, LocalCluster

from framecast_farm import driver, plan
from framecast_farm.worker import hardware_gpus

# Options the farm sets on each task itself.
OWN = {"-i", "--input", "-o", "--output", "--segment", "--progress", "--backend", "--device"}

EXAMPLES = """
examples:
  framecast-farm -i film.mkv -o film-60.mkv --fps 60000/1001
  framecast-farm -i library/ -o library-2x/ --factor 2 --scheduler tcp://head:8786 -- --model quality
  framecast-farm -i clip.mp4 -o clip-2x.mkv --factor 2 --workers 2 -- --codec ffv1

Options after -- go to every `framecast interpolate` run (model, codec, scene threshold...).
"""


def parse(argv):
    p = argparse.ArgumentParser(
        prog="framecast-farm", epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run `framecast interpolate` on a file or a folder of files, cut into "
                    "segments that run as tasks on a Dask cluster, and join each file's parts.")
    p.add_argument("-i", "--input", required=True, help="a video file or a folder of them")
    p.add_argument("-o", "--output", required=True,
                   help="the output file (.mkv, .mp4, .mov, .webm), or a folder")
    rate = p.add_mutually_exclusive_group(required=True)
    rate.add_argument("--factor", help="multiply the frame rate (2, 2.5, 5/2)")
    rate.add_argument("--fps", help="output frame rate (60, 60000/1001)")
    p.add_argument("--scheduler", help="a Dask scheduler's address (tcp://host:8786); "
                                       "default: a local cluster")
    p.add_argument("--workers", type=int, default=1,
                   help="worker processes of the local cluster (default 1)")
    p.add_argument("--threads", type=int, default=0,
                   help="tasks at a time per local worker (default: its GPUs, at least 1)")
    p.add_argument("--segment-seconds", type=float, default=60.0,
                   help="cut each file into segments of about this much input (default 60)")
    p.add_argument("--segments", type=int, default=0, help="cut each file into exactly N segments")
    p.add_argument("--retries", type=int, default=2,
                   help="retries of a failed segment task (default 2)")
    p.add_argument("--allowed-failures", type=int, default=3,
                   help="local cluster: workers that may die running one task (default 3)")
    p.add_argument("--backend", choices=["auto", "cpu", "vulkan"], default="auto",
                   help="auto: the workers' GPUs when they have any, else the CPU")
    p.add_argument("--container", help="folder input: the outputs' extension (default: each "
                                       "input's own when joinable, else mkv)")
    p.add_argument("--framecast", default=shutil.which("framecast") or "framecast",
                   help="the framecast binary, at the same path on every worker")
    p.add_argument("extra", nargs="*", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    clash = OWN.intersection(a.split("=")[0] for a in args.extra)
    if clash:
        p.error(f"{', '.join(sorted(clash))}: set by framecast-farm, not after --")
    if args.segments < 0 or args.segment_seconds <= 0 or args.retries < 0 or args.workers < 1:
        p.error("--segments, --segment-seconds, --retries and --workers must be positive")
    return args


def local_cluster(args):
    threads = args.threads or max(1, len(hardware_gpus(args.framecast)))
    # Loopback only: a local cluster serves no one else. Its workers' warnings are quiet: the
    # driver reports failed and retried segments itself, in one line each.
    with dask.config.set({"distributed.scheduler.allowed-failures": args.allowed_failures}):
        return LocalCluster(n_workers=args.workers, threads_per_worker=threads, processes=True,
                            host="127.0.0.1", dashboard_address=None, silence_logs=logging.ERROR)


def interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    # SIGTERM (a batch system's stop) cleans up like Ctrl-C: work folders removed, the local
    # cluster closed, which stops its framecasts.
    signal.signal(signal.SIGTERM, interrupt)
    try:
        jobs = plan.file_jobs(args.input, args.output, args.container)
    except ValueError as e:
        print(f"framecast-farm: error: {e}", file=sys.stderr)
        return 2
    for job in jobs:
        job.output.parent.mkdir(parents=True, exist_ok=True)
    options = driver.Options(
        framecast=args.framecast,
        args=(["--factor", args.factor] if args.factor else ["--fps", args.fps]) + args.extra,
        segment_seconds=args.segment_seconds, segments=args.segments, retries=args.retries,
        backend=args.backend)
    cluster = None
    try:
        cluster = None if args.scheduler else local_cluster(args)
        with Client(args.scheduler or cluster) as client:
            results = driver.run(client, jobs, options, sys.stderr)
    except KeyboardInterrupt:
        print("framecast-farm: error: interrupted", file=sys.stderr)
        return 130
    except (RuntimeError, OSError) as e:
        print(f"framecast-farm: error: {e}", file=sys.stderr)
        return 1
    finally:
        if cluster:
            cluster.close()
    failed = [r for r in results if r.error]
    if len(jobs) > 1 or failed:
        print(f"framecast-farm: {len(jobs) - len(failed)} of {len(jobs)} files done"
              + "".join(f"\n  failed: {r.input}: {r.error}" for r in failed), file=sys.stderr)
    return 1 if failed else 0
