"""PyTorch's side of bench/h200/vs_pytorch.sh: the project's own PyTorch model
(tools/framecast_model) on CUDA for the same weights and sizes as `framecast bench`, and the
table that puts both side by side.

    python3 bench/h200/vs_pytorch.py torch OUT.json MODEL.safetensors... \
        [--compile NAME:on,NAME:off,...]
    python3 bench/h200/vs_pytorch.py table TORCH.json FRAMECAST_DIR

torch: per model, one 1920x1080 mid with the large-motion pass on and off, fp16 autocast,
channels-last, in eager mode, replayed as a CUDA graph and, for the model and pass settings
named by --compile (max-autotune compiles take minutes), through
torch.compile(mode="max-autotune"); "gpu" times the forward with the frames already
on the GPU, "io" adds what `framecast bench` also times: two 8-bit frames uploaded from pinned
memory and converted, the mid rounded to 8 bits and read back. Also the three conv kinds of
block0 at 1080p alone (bias and PReLU included; 50 calls queued per timing). All times are
medians of CUDA-event timings.
"""
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))

W, H = 1920, 1080
RUNS, WARMUP = 20, 5
# block0 at 1/4 of 1920x1088: conv0a 7 -> C1 (stride 2) on 480x272, conv0b C1 -> C2 (stride 2)
# on 240x136, the trunk's C2 -> C2 convs on 120x68 (C1 = 120, C2 = 240 in the shipped models)
CONVS = {"trunk conv 240->240, 120x68": (240, 240, 68, 120, 1),
         "conv0b 120->240, stride 2": (120, 240, 136, 240, 2),
         "conv0a 7->120, stride 2": (7, 120, 272, 480, 2)}


def median_ms(fn, runs=RUNS, warmup=WARMUP, batch=1):
    """Median ms per call; with batch > 1, of `batch` calls queued back to back between the
    events, so that a kernel shorter than its launch is timed on the GPU, not the host."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(batch):
            fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / batch)
    return statistics.median(times)


def as_graph(fn):
    """fn captured once as a CUDA graph; returns its replay, or None if it cannot be captured."""
    try:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            fn()
        return g.replay
    except RuntimeError as e:
        print(f"  CUDA graph capture failed: {e}", flush=True)
        return None


def frames_u8():
    """Two 8-bit frames with texture and motion, in pinned host memory."""
    yy, xx = torch.meshgrid(torch.arange(H, dtype=torch.float32),
                            torch.arange(W, dtype=torch.float32), indexing="ij")

    def frame(s):
        base = 0.5 + 0.25 * torch.sin((xx - s) / 37.0) * torch.cos(yy / 23.0) \
            + 0.15 * torch.sin((xx + yy - 2 * s) / 9.0)
        rgb = torch.stack([base, 0.8 * base + 0.1, 1.0 - base], -1).clamp(0, 1)
        return (rgb * 255 + 0.5).to(torch.uint8).pin_memory()

    return frame(0.0), frame(6.0)


def time_model(path, passes, compiled_only, log):
    """{"pass on"|"pass off": times} for passes ("on", "off"): eager and CUDA graph, or with
    compiled_only the max-autotune compile alone."""
    from framecast_model import load_model
    net = load_model(path).cuda().eval()
    host0, host1 = frames_u8()
    out_host = torch.empty_like(host0).pin_memory()

    def to_gpu(host):
        x = host.cuda(non_blocking=True).permute(2, 0, 1).unsqueeze(0).float() / 255
        return x.contiguous(memory_format=torch.channels_last)

    x0, x1 = to_gpu(host0), to_gpu(host1)
    t = torch.full((1,), 0.5, device="cuda")  # made once: no host copy inside a CUDA graph
    result = {}
    for lm in (p == "on" for p in passes):
        def forward(a=None, b=None, lm=lm, net=net):
            with torch.no_grad(), torch.autocast("cuda", dtype=torch.float16):
                return net(x0 if a is None else a, x1 if b is None else b, t, large_motion=lm)

        def with_io(fwd):
            def run():
                out = fwd(to_gpu(host0), to_gpu(host1))
                u8 = (out[0].permute(1, 2, 0) * 255).round().clamp(0, 255).to(torch.uint8)
                out_host.copy_(u8, non_blocking=True)
            return run

        key = "pass on" if lm else "pass off"
        if compiled_only:
            started = time.time()  # not `t`: forward reads the t tensor above
            compiled = torch.compile(forward, mode="max-autotune")
            compiled()
            row = {"compile s": round(time.time() - started, 1)}
            row["compiled gpu"] = median_ms(compiled)
            row["compiled io"] = median_ms(with_io(compiled))
            log(f"  {os.path.basename(path)} {key}: compiled in {row['compile s']} s, "
                f"{row['compiled gpu']:.3f} ms ({row['compiled io']:.3f} with I/O)")
        else:
            row = {"eager gpu": median_ms(forward), "eager io": median_ms(with_io(forward))}
            replay = as_graph(forward)
            if replay is not None:
                row["graph gpu"] = median_ms(replay)
            log(f"  {os.path.basename(path)} {key}: eager {row['eager gpu']:.3f} ms "
                f"({row['eager io']:.3f} with I/O), CUDA graph "
                f"{row.get('graph gpu', float('nan')):.3f}")
        result[key] = row
    return result


def time_convs(log):
    result = {}
    for name, (ci, co, h, w, stride) in CONVS.items():
        x = torch.randn(1, ci, h, w, device="cuda", dtype=torch.float16) \
            .contiguous(memory_format=torch.channels_last)
        wt = (torch.randn(co, ci, 3, 3, device="cuda", dtype=torch.float16) * 0.05) \
            .contiguous(memory_format=torch.channels_last)
        bias = torch.randn(co, device="cuda", dtype=torch.float16) * 0.1
        slope = torch.full((co,), 0.25, device="cuda", dtype=torch.float16)

        def conv(x=x, wt=wt, bias=bias, slope=slope, stride=stride):
            return F.prelu(F.conv2d(x, wt, bias, stride=stride, padding=1), slope)

        row = {"eager": median_ms(conv, batch=50)}
        # without CUDA graphs: replaying a graph per call costs more host time than these
        # kernels take on the GPU
        compiled = torch.compile(conv, mode="max-autotune-no-cudagraphs")
        compiled()
        row["compiled"] = median_ms(compiled, batch=50)
        row["gflop"] = 2 * ci * 9 * co * (h // stride) * (w // stride) / 1e9
        result[name] = row
        log(f"  {name}: eager {row['eager']:.4f} ms, compiled {row['compiled']:.4f} ms")
    return result


def torch_main(out, paths, compile_list):
    global torch, F  # imported here: the table needs no PyTorch
    import torch
    import torch.nn.functional as F
    torch.backends.cudnn.benchmark = True

    def log(s):
        print(s, flush=True)

    report = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "models": {}}
    log(f"PyTorch {report['torch']} on {report['gpu']}")
    # eager and CUDA graphs of every model first, then the single convs (compiles of seconds);
    # the whole-model compiles, minutes each, last, in --compile's order
    for p in paths:
        name = os.path.basename(p).rsplit(".", 1)[0]
        report["models"][name] = time_model(p, ("on", "off"), False, log)
        save(out, report)  # what is done survives a time-out
    report["convs"] = time_convs(log)
    save(out, report)
    for item in compile_list:
        name, lm = item.split(":")
        path = next(p for p in paths if os.path.basename(p).rsplit(".", 1)[0] == name)
        report["models"][name]["pass " + lm].update(time_model(path, (lm,), True, log)["pass " + lm])
        save(out, report)


def save(path, report):
    with open(path, "w") as f:
        json.dump(report, f, indent=1)


def stage_sum(stages, prefix):
    return sum(v for k, v in stages.items() if k.startswith(prefix))


def table(torch_json, framecast_dir):
    """Markdown: one row per model and pass setting, and one per conv kind. framecast_dir holds
    `framecast bench --json` reports NAME.{on,off}.json (timed) and NAME.{on,off}.profile.json
    (the same with --profile, for the stages)."""
    with open(torch_json) as f:
        pt = json.load(f)
    fc = {}
    for file in sorted(os.listdir(framecast_dir)):
        parts = file.split(".")
        if len(parts) != 3:
            continue
        with open(os.path.join(framecast_dir, file)) as f:
            timed = json.load(f)[0]
        with open(os.path.join(framecast_dir, f"{parts[0]}.{parts[1]}.profile.json")) as f:
            timed["stages_ms"] = json.load(f)[0].get("stages_ms", {})
        fc[(parts[0], "pass " + parts[1])] = timed
    print(f"PyTorch {pt['torch']} on {pt['gpu']}, 1920x1080, one mid, ms (medians)\n")
    print("| model | pass | Framecast device (upload + readback) | Framecast stages, no I/O | "
          "PyTorch eager (with I/O) | CUDA graph | torch.compile (with I/O) | "
          "Framecast / best PyTorch: no I/O, with I/O |")
    print("|---|---|---|---|---|---|---|---|")
    for (name, lm), rep in sorted(fc.items()):
        row = pt["models"].get(name, {}).get(lm)
        if row is None:
            continue
        stages = rep.get("stages_ms", {})
        no_io = sum(stages.values()) - stages.get("upload", 0) - stages.get("readback", 0)
        best = min(v for k, v in row.items() if k.endswith("gpu"))
        best_io = min(v for k, v in row.items() if k.endswith("io"))
        comp = (f"{row['compiled gpu']:.3f} ({row['compiled io']:.3f})"
                if "compiled gpu" in row else "")
        graph = f"{row['graph gpu']:.3f}" if "graph gpu" in row else "n/a"
        print(f"| {name} | {lm} | {rep['ms_per_pair']:.3f} | {no_io:.3f} | "
              f"{row['eager gpu']:.3f} ({row['eager io']:.3f}) | {graph} | {comp} | "
              f"{no_io / best:.2f}x, {rep['ms_per_pair'] / best_io:.2f}x |")
    print("\n| conv at 1080p (fp16) | GFLOP | PyTorch eager | torch.compile | "
          "Framecast (fast, stage) |")
    print("|---|---|---|---|---|")
    fast = next((r for (n, lm), r in fc.items() if "fast" in n and lm == "pass off"), None)
    stages = fast.get("stages_ms", {}) if fast else {}
    ours = {"trunk": stage_sum(stages, "trunk") / max(1, sum(k.startswith("trunk")
                                                           for k in stages)),
            "conv0b": stages.get("conv0b"), "conv0a": stages.get("conv0a")}
    for name, row in pt.get("convs", {}).items():
        mine = ours[name.split()[0]]
        print(f"| {name} | {row['gflop']:.2f} | {row['eager']:.4f} | {row['compiled']:.4f} | "
              + (f"{mine:.4f} |" if mine else "|"))


if __name__ == "__main__":
    if sys.argv[1] == "torch":
        compile_list = []
        args = sys.argv[3:]
        if "--compile" in args:
            i = args.index("--compile")
            compile_list = [x for x in args[i + 1].split(",") if x]
            args = args[:i] + args[i + 2:]
        torch_main(sys.argv[2], args, compile_list)
    elif sys.argv[1] == "table":
        table(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
