"""framecast-farm on a real local Dask cluster (worker processes on loopback): segmented jobs
are the one-piece run, a worker killed mid-segment loses nothing, a corrupt input fails with
framecast's one-line error naming the file. FRAMECAST_BINARY names the framecast to run."""
import io
import os
import signal
import subprocess
import tempfile
import threading
import time
import unittest
from pathlib import Path

import dask
from distributed import Client, LocalCluster

from framecast_farm import driver, plan, probe

FRAMECAST = os.environ.get("FRAMECAST_BINARY", "framecast")
FARM = Path(__file__).with_name("framecast-farm")
# The fastest engine settings and lossless codecs (FFV1 in Matroska; H.264 at CRF 0 in MP4,
# with B-frames and an edit list): decoded frames compare exactly.
ENGINE = ["--model", "slim", "--codec", "ffv1"]
ENGINE_MP4 = ["--model", "slim", "--codec", "libx264", "--crf", "0"]


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y", *args], check=True)


def framemd5(path, stream):
    """Per frame (video decoded) or per packet (audio copied): timestamp, size and MD5."""
    codec = [] if stream == "v" else ["-c", "copy"]
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", f"0:{stream}", *codec,
                        "-f", "framemd5", "-"], capture_output=True, text=True, check=True)
    return [line for line in r.stdout.splitlines() if not line.startswith("#")]


def times(path, stream):
    """Every packet's presentation time in seconds, as the container stores it, in order."""
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", stream, "-show_entries",
                        "packet=pts_time", "-of", "csv=p=0", str(path)],
                       capture_output=True, text=True, check=True)
    return sorted(float(t) for t in r.stdout.split())


def children(pid):
    """The processes whose parent is pid."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Farm(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.addCleanup(self.tmp.cleanup)

    def clip(self, name, seconds, size="128x96", audio="flac"):
        """testsrc2 (moving) with a sine track in Matroska, the video starting 0.023 s after
        the audio, as in many real files: the join must put it back there."""
        path = self.dir / name
        ffmpeg("-itsoffset", "0.023", "-f", "lavfi", "-i", f"testsrc2=s={size}:r=24:d={seconds}",
               "-f", "lavfi", "-i", f"sine=d={seconds}", "-c:v", "ffv1", "-c:a", audio, str(path))
        return path

    def whole_run(self, source, output, engine=ENGINE):
        subprocess.run([FRAMECAST, "interpolate", "-i", str(source), "-o", str(output),
                        "--factor", "2", "--backend", "cpu", "--progress", "none", *engine],
                       check=True)

    def cluster(self, workers):
        with dask.config.set({"distributed.scheduler.allowed-failures": 3}):
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None)
        self.addCleanup(cluster.close)
        client = Client(cluster)
        self.addCleanup(client.close)
        return client

    def assert_same_video_and_audio(self, joined, whole):
        """The whole run's decoded frames and audio packets at its timestamps: exactly in
        Matroska; to 1 ms in MP4, whose joined video comes from Matroska parts (milliseconds)
        and whose whole run keeps the Matroska source's millisecond audio times, where
        ffmpeg's stream copy recomputes them exactly."""
        self.assertEqual(framemd5(joined, "v"), framemd5(whole, "v"))
        self.assertGreater(times(whole, "v")[0], times(whole, "a")[0])  # the video starts later
        for stream in "va":
            for got, want in zip(times(joined, stream), times(whole, stream), strict=True):
                self.assertAlmostEqual(got, want, delta=0 if joined.suffix == ".mkv" else 0.001)

        def payload(path):
            return [line.split(",")[-2:] for line in framemd5(path, "a")]
        self.assertEqual(payload(joined), payload(whole))
        if joined.suffix == ".mkv":
            self.assertEqual(framemd5(joined, "a"), framemd5(whole, "a"))

    def test_segments_join_to_the_whole_run(self):
        self.source = self.clip("in.mkv", 3)
        self.whole_run(self.source, self.dir / "whole.mkv")
        # A phone-style file: rotated 90 degrees, with a title, into MP4.
        rotated = self.dir / "rot.mp4"
        ffmpeg("-f", "lavfi", "-i", "testsrc2=s=128x96:r=24:d=1", "-c:v", "libx264",
               str(self.dir / "plain.mp4"))
        ffmpeg("-i", str(self.dir / "plain.mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=90",
               "-metadata", "title=Rotated", str(rotated))  # rotate applies on stream copy only
        (self.dir / "plain.mp4").unlink()
        self.whole_run(rotated, self.dir / "whole-rot.mp4", ENGINE_MP4)
        client = self.cluster(3)
        log = io.StringIO()
        results = driver.run(client, [plan.FileJob(self.source, self.dir / "out.mkv")],
                             driver.Options(framecast=FRAMECAST, args=["--factor", "2", *ENGINE],
                                            segments=5, backend="cpu"), log)
        self.assertEqual(results[0].error, "", log.getvalue())
        self.assertEqual(results[0].frames, 144)
        self.assert_same_video_and_audio(self.dir / "out.mkv", self.dir / "whole.mkv")
        results = driver.run(client, [plan.FileJob(rotated, self.dir / "out-rot.mp4")],
                             driver.Options(framecast=FRAMECAST, args=["--factor", "2", *ENGINE_MP4],
                                            segments=2, backend="cpu"), log)
        self.assertEqual(results[0].error, "", log.getvalue())
        self.assertEqual(framemd5(self.dir / "out-rot.mp4", "v"), framemd5(self.dir / "whole-rot.mp4", "v"))
        for path in (self.dir / "whole-rot.mp4", self.dir / "out-rot.mp4"):
            self.assertEqual(probe.video_rotation(path), 90, path)
            r = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format_tags=title",
                                "-of", "csv=p=0", str(path)], capture_output=True, text=True)
            self.assertEqual(r.stdout.strip(), "Rotated", path)
        workers = client.scheduler_info()["workers"].values()
        self.assertTrue(all(w["resources"].get("GPU") == 0 for w in workers))  # lavapipe is not one
        self.assertEqual(sorted(p.name for p in self.dir.iterdir()),
                         ["in.mkv", "out-rot.mp4", "out.mkv", "rot.mp4", "whole-rot.mp4", "whole.mkv"])

    def test_killed_worker_loses_nothing(self):
        self.source = self.clip("in.mkv", 4, "192x144", "aac")  # FLAC in MP4 is experimental
        self.whole_run(self.source, self.dir / "whole.mp4", ENGINE_MP4)
        client = self.cluster(3)
        starts, killed = [], {}

        def kill_when_writing(event):
            # The first attempt of segment 1, once framecast has its output open: SIGKILL to
            # the worker process, as a machine lost mid-segment. Its framecast must stop at
            # once and remove its temporary file, not run on (or die later of a broken pipe).
            try:
                part = Path(event["part"])
                deadline = time.monotonic() + 20
                while not (partial := list(part.parent.glob("." + part.stem + ".partial-*"))):
                    if time.monotonic() > deadline:
                        return
                    time.sleep(0.01)
                killed["framecast"] = children(event["pid"])
                os.kill(event["pid"], signal.SIGKILL)
                killed["worker"] = event["pid"]
                deadline = time.monotonic() + 10
                while any(map(alive, killed["framecast"])) and time.monotonic() < deadline:
                    time.sleep(0.05)
                killed["running"] = [pid for pid in killed["framecast"] if alive(pid)]
                killed["left"] = [p.name for p in partial + [part] if p.exists()]
            except Exception as e:  # reported by the assertions below
                killed["error"] = repr(e)

        def on_event(event):
            if event["event"] == "start" and event["key"].endswith("-0-1"):
                starts.append(event)
                if len(starts) == 1:
                    threading.Thread(target=kill_when_writing, args=(event,)).start()

        log = io.StringIO()
        results = driver.run(client, [plan.FileJob(self.source, self.dir / "out.mp4")],
                             driver.Options(framecast=FRAMECAST, args=["--factor", "2", *ENGINE_MP4],
                                            segments=3, backend="cpu"), log, on_event)
        self.assertEqual(results[0].error, "", log.getvalue())
        self.assertIn("worker", killed, f"the worker was not killed mid-segment: {killed}")
        self.assertEqual(len(starts), 2, log.getvalue())  # killed, then retried elsewhere
        self.assertNotEqual(starts[1]["pid"], killed["worker"])
        self.assertIn("segment 1/3 restarted", log.getvalue())
        self.assertEqual(results[0].frames, 192)
        self.assert_same_video_and_audio(self.dir / "out.mp4", self.dir / "whole.mp4")
        self.assertEqual(len(killed["framecast"]), 1)
        self.assertEqual(killed["running"], [])  # the killed attempt's framecast stopped,
        self.assertEqual(killed["left"], [])  # removed its temporary file, wrote no part
        self.assertEqual(sorted(p.name for p in self.dir.iterdir()), ["in.mkv", "out.mp4", "whole.mp4"])

    def test_a_stopped_job_leaves_nothing(self):
        # long enough that both segments are still writing after framecast's first report
        # (once a second), although each decodes only from a keyframe before its part: 6 s
        # took under a second a segment on a 2-core machine, so the job ended unstopped
        self.source = self.clip("in.mkv", 30, "480x272")
        farm = subprocess.Popen([str(FARM), "-i", str(self.source), "-o", str(self.dir / "out.mkv"),
                                 "--factor", "2", "--workers", "2", "--segments", "2",
                                 "--framecast", FRAMECAST, "--backend", "cpu", "--", *ENGINE],
                                stderr=subprocess.PIPE, text=True)
        self.addCleanup(farm.kill)
        for line in farm.stderr:  # once both segments' framecasts are writing
            if " 2 running, " in line and " 0 frames" not in line:
                break
        farm.send_signal(signal.SIGTERM)
        self.assertEqual(farm.wait(timeout=60), 130)
        self.assertIn("framecast-farm: error: interrupted", farm.stderr.read())
        self.assertEqual([p.name for p in self.dir.iterdir()], ["in.mkv"])  # no part, no output

        def ours():  # processes whose command line names the test's folder
            found = []
            for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
                try:
                    if str(self.dir).encode() in cmdline.read_bytes():
                        found.append(int(cmdline.parent.name))
                except OSError:
                    pass  # gone
            return found
        deadline = time.monotonic() + 10
        while ours() and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(ours(), [])  # the local cluster's framecasts stopped with it

    def test_gpus_come_from_each_workers_framecast_info(self):
        # A framecast whose info lists two hardware GPUs (and a software one), and whose
        # interpolate logs the device it was given and runs on the CPU: one worker with two
        # threads must declare GPU=2 and run each segment on a device no other task holds.
        fake = self.dir / "framecast-2gpus"
        log = self.dir / "devices.log"
        fake.write_text(f"""#!/bin/bash
if [ "$1" = info ]; then
  echo '{{"vulkan": {{"devices": [{{"index": 0, "hardware": true, "usable": true}},
    {{"index": 1, "hardware": true, "usable": true}}, {{"index": 2, "hardware": false, "usable": true}}]}}}}'
  exit
fi
[ "$1" = plan ] && exec {FRAMECAST} "$@"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) shift 2;;
    --device) device=$2; shift 2;;
    *) args+=("$1"); shift;;
  esac
done
start=$(date +%s.%N)
{FRAMECAST} "${{args[@]}}" --backend cpu
status=$?
echo "$device $start $(date +%s.%N)" >> {log}
exit $status
""")
        fake.chmod(0o755)
        self.source = self.clip("in.mkv", 2)
        self.whole_run(self.source, self.dir / "whole.mkv")
        with dask.config.set({"distributed.scheduler.allowed-failures": 3}):
            cluster = LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                   host="127.0.0.1", dashboard_address=None)
        self.addCleanup(cluster.close)
        client = Client(cluster)
        self.addCleanup(client.close)
        out = io.StringIO()
        results = driver.run(client, [plan.FileJob(self.source, self.dir / "out.mkv")],
                             driver.Options(framecast=str(fake), args=["--factor", "2", *ENGINE],
                                            segments=4), out)
        self.assertEqual(results[0].error, "", out.getvalue())
        [worker] = client.scheduler_info()["workers"].values()
        self.assertEqual(worker["resources"], {"GPU": 2})
        runs = [line.split() for line in log.read_text().splitlines()]
        self.assertEqual(len(runs), 4)
        self.assertEqual({device for device, _, _ in runs}, {"0", "1"})
        for device in "01":
            spans = sorted((float(a), float(b)) for d, a, b in runs if d == device)
            for (_, end), (start, _) in zip(spans, spans[1:]):
                self.assertLessEqual(end, start)  # one task at a time per GPU
        self.assert_same_video_and_audio(self.dir / "out.mkv", self.dir / "whole.mkv")

    def test_corrupt_input_names_the_file(self):
        videos = self.dir / "videos"
        videos.mkdir()
        ffmpeg("-f", "lavfi", "-i", "testsrc2=s=128x96:r=24:d=4", "-c:v", "libx264",
               "-movflags", "+faststart", str(self.dir / "full.mp4"))
        data = (self.dir / "full.mp4").read_bytes()
        (videos / "bad.mp4").write_bytes(data[:len(data) // 2])  # index first, data cut
        self.source = self.clip("videos/good.mkv", 1)
        out = self.dir / "out"
        r = subprocess.run([str(FARM), "-i", str(videos), "-o", str(out), "--factor", "2",
                            "--workers", "2", "--segments", "2", "--retries", "1", "--container", "mkv",
                            "--framecast", FRAMECAST, "--backend", "cpu", "--", *ENGINE],
                           capture_output=True, text=True, timeout=100)
        self.assertEqual(r.returncode, 1, r.stderr)
        failed = [line for line in r.stderr.splitlines() if "failed: " in line]
        self.assertTrue(failed, r.stderr)
        self.assertIn("bad.mp4: failed: segment ", failed[0])
        self.assertIn("framecast: error: ", failed[0])
        self.assertIn("truncated", failed[0])
        self.assertIn("1 of 2 files done", r.stderr)
        self.assertEqual(sorted(p.name for p in out.iterdir()), ["good.mkv"])  # nothing hidden, no bad.mkv
        self.whole_run(self.source, self.dir / "whole.mkv")
        self.assert_same_video_and_audio(out / "good.mkv", self.dir / "whole.mkv")


class Plan(unittest.TestCase):
    """Which files a submission holds and where they go; no cluster."""

    def test_outputs_never_replace_inputs_or_each_other(self):
        with tempfile.TemporaryDirectory() as tmp:
            videos = Path(tmp)
            for name in ("a.mkv", "b.avi", "notes.txt", ".hidden.mkv"):
                (videos / name).write_bytes(b"")
            jobs = plan.file_jobs(videos, videos / "out")
            self.assertEqual([(j.input.name, j.output.name) for j in jobs],
                             [("a.mkv", "a.mkv"), ("b.avi", "b.mkv")])
            self.assertEqual(plan.file_jobs(videos / "a.mkv", videos / "x.mp4")[0].output.name, "x.mp4")
            for source, destination, message in (
                    (videos, videos, "is an input"),
                    (videos / "a.mkv", videos / "a.mkv", "is an input"),
                    (videos / "a.mkv", videos / "a.avi", "write .mkv, .mp4, .mov or .webm"),
                    (videos / "missing.mkv", videos / "x.mkv", "no such file")):
                with self.assertRaisesRegex(ValueError, message):
                    plan.file_jobs(source, destination)
            (videos / "b.mkv").write_bytes(b"")
            with self.assertRaisesRegex(ValueError, "would both be written to .*b.mkv"):
                plan.file_jobs(videos, videos / "out")

    def test_segments_of_about_a_minute(self):
        self.assertEqual([plan.segment_count(d, 60) for d in (1, 89, 91, 7200)], [1, 1, 2, 120])

    def test_framecast_plan_gets_the_rate_options(self):
        self.assertEqual(plan.rate_args(["--model", "slim", "--factor", "2", "--crf", "18"]),
                         ["--factor", "2"])
        self.assertEqual(plan.rate_args(["--fps=60000/1001", "--codec", "ffv1"]), ["--fps=60000/1001"])


if __name__ == "__main__":
    unittest.main()
