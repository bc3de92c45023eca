"""Progress across all segment tasks, from the events the tasks send, as one line on stderr."""
import sys
import threading
import time


def clock(seconds):
    seconds = int(seconds)
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


class Progress:
    """Updated from the client's event thread (task starts and reports) and the driver's loop
    (finished segments); read by the driver's loop once a second."""

    def __init__(self, stream=sys.stderr):
        self.segments = 0
        self.stream = stream
        self.lock = threading.Lock()
        self.start = time.monotonic()
        self.running = {}  # key -> (frames, total) of its latest attempt
        self.attempts = {}  # key -> starts seen
        self.done_segments = 0
        self.done_frames = 0

    def add(self, segments):
        with self.lock:
            self.segments += segments

    def started(self, key):
        with self.lock:
            self.attempts[key] = self.attempts.get(key, 0) + 1
            self.running[key] = (0, None)
            return self.attempts[key]

    def report(self, key, frames, total):
        with self.lock:
            if key in self.running:
                self.running[key] = (frames, total)

    def finished(self, key, frames):
        with self.lock:
            self.running.pop(key, None)
            self.done_segments += 1
            self.done_frames += frames

    def dropped(self, key):
        """A segment that will not finish (its file failed)."""
        with self.lock:
            self.running.pop(key, None)
            self.segments -= 1

    def line(self):
        with self.lock:
            elapsed = time.monotonic() - self.start
            fraction = self.done_segments + sum(f / t for f, t in self.running.values() if t)
            fraction /= max(self.segments, 1)
            frames = self.done_frames + sum(f for f, _ in self.running.values())
            retried = sum(1 for n in self.attempts.values() if n > 1)
            text = (f"{self.done_segments}/{self.segments} segments done, "
                    f"{len(self.running)} running, {frames} frames, "
                    f"{frames / elapsed if elapsed > 0 else 0:.1f} fps, {100 * fraction:.1f}%")
            if 0 < fraction < 1:
                text += f", ETA {clock(elapsed * (1 - fraction) / fraction)}"
            if retried:
                text += f", {retried} retried"
            return text

    def print(self, message=None):
        self.stream.write("framecast-farm: " + (message or self.line()) + "\n")
        self.stream.flush()
