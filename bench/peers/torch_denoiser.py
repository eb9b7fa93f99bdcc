#!/usr/bin/env python3
"""The GPU peer of bench_denoise_net_cuda (issue 36): PyTorch running the
same weight file (its program read from the file's header by
training/denoise_net.py) on a random image of the same size, channels-last,
in fp16 and in bf16, eager and (with --compile) torch.compile'd; kernel time
by CUDA events, the median of 7 after warm-ups. Bench-only: PyTorch is no
dependency of Edgewise.

  python3 bench/peers/torch_denoiser.py FILE.ewnn [--size 6000 4000] [--compile]
"""
import argparse
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "training"))
import denoise_net  # noqa: E402
import ewnn  # noqa: E402


def program_of(lines):
    """The header's layer lines as denoise_net's program tuples."""
    program = []
    for words in lines:
        if words[0] != "layer":
            continue
        op = words[1]
        if op == "conv":
            program.append(("conv", int(words[2]), int(words[3]), int(words[4]), words[6] == "relu"))
        elif op in ("unshuffle", "shuffle", "map"):
            program.append((op, int(words[2])))
        else:
            program.append((op,))
    return program


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", type=pathlib.Path)
    ap.add_argument("--size", type=int, nargs=2, default=(6000, 4000), metavar=("WIDTH", "HEIGHT"))
    ap.add_argument("--compile", action="store_true")
    args = ap.parse_args()
    lines, payload, _ = ewnn.read(args.file)
    program = program_of(lines)
    model = denoise_net.DenoiseNet(program)
    model.load_state_dict(ewnn.conv_state(lines, payload))
    model = model.cuda().eval().to(memory_format=torch.channels_last)
    torch.backends.cudnn.benchmark = True
    w, h = args.size
    maps = next(s[1] for s in program if s[0] == "map")
    gen = torch.Generator(device="cuda").manual_seed(36)
    rgb = torch.rand(1, 3, h, w, device="cuda", generator=gen).contiguous(memory_format=torch.channels_last)
    nmap = (torch.rand(1, maps, h // 2, w // 2, device="cuda", generator=gen) - 0.5).contiguous(
        memory_format=torch.channels_last)
    macs = denoise_net.macs_per_pixel(program) * w * h
    print(f"{torch.cuda.get_device_name()}, PyTorch {torch.__version__}, {w} x {h}, {macs / 1e12:.2f} T multiply-adds")
    variants = [("fp16", torch.float16, False), ("bf16", torch.bfloat16, False)]
    if args.compile:
        variants += [("fp16 compiled", torch.float16, True), ("bf16 compiled", torch.bfloat16, True)]
    for name, dtype, compiled in variants:
        net = model.to(dtype)
        run = torch.compile(net) if compiled else net
        x, m = rgb.to(dtype), nmap.to(dtype)
        with torch.no_grad():
            for _ in range(3 if compiled else 1):
                run(x, m)
            torch.cuda.synchronize()
            times = []
            for _ in range(7):
                start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                run(x, m)
                stop.record()
                torch.cuda.synchronize()
                times.append(start.elapsed_time(stop))
        times.sort()
        median = times[len(times) // 2]
        print(f"  {name:14s} {median:8.2f} ms (median of 7, {times[0]:.2f}-{times[-1]:.2f}), "
              f"{2 * macs / median / 1e9:.0f} TFLOP/s, peak memory {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")
        torch.cuda.reset_peak_memory_stats()


if __name__ == "__main__":
    main()
