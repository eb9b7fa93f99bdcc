// Issue 27's GPU peer measurement (bench/peers/README.md; run on the device
// machine by tests/gpu/run.sh's bm3d-peer step): on one noisy photo
// (bench/peers/prepare.sh: a clean and a noisy PPM, white noise sigma 20),
// Edgewise's nlbayes given the noise (sigma-n 20) and blind (sigma-n auto),
// and nlm at its defaults (auto), each timed twice:
//   - GPU ms: the band kernel alone on the whole image resident on the GPU
//     as one band, by CUDA events (median of 5 after a warm-up; a fresh copy
//     of the band before each run, its time subtracted: as
//     bench_nlbayes_cuda), planned as the engine plans it (at auto from the
//     noise estimate of the noisy image);
//   - end to end: run_filter on the CUDA backend from and into 8-bit RGB
//     host buffers (noise estimate at auto, transfers, unpacking and packing
//     included; median of 3 after a warm-up).
// Each output is written to OUTDIR as PPM and scored against the clean
// photo (bench/peers/image_scores.h: PSNR, SSIM), in the same table as the
// peer's rows: each --peer names a method, its settings, its GPU time and
// what that time covers, its end-to-end time, and its output image, which
// is scored by the same code. `--backend cpu` runs the Edgewise rows on the
// CPU backend, end to end only (to check this program on a machine without
// a GPU). `--score` prints PSNR and SSIM of images against a clean one.
//
// Usage: bench_nlbayes_peer CLEAN.ppm NOISY.ppm OUTDIR [--backend cpu]
//            [--peer METHOD SETTINGS GPU_MS GPU_MS_IS END_TO_END_MS IMAGE.ppm]...
//        bench_nlbayes_peer --score CLEAN.ppm IMAGE.ppm...
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "cuda_timing.h"
#include "device_band.h"
#include "device_resources.h"
#include "engine.h"
#include "filter_registry.h"
#include "gpu_photo.h"
#include "peers/image_scores.h"
#include "peers/pnm_file.h"
#include "wall_timing.h"

using namespace edgewise;
using edgewise_bench::PnmImage;

namespace {

struct Row {
  std::string method, settings, gpu_ms, gpu_ms_is, end_to_end_ms, image;
};

struct Scores {
  double psnr = 0, ssim = 0;
};

Scores score(const PnmImage& clean, const PnmImage& image) {
  if (image.width != clean.width || image.height != clean.height || image.channels != clean.channels)
    throw std::runtime_error("the image differs from the clean one in size or channels");
  return {edgewise_bench::psnr(clean.samples.data(), image.samples.data(), clean.samples.size()),
          edgewise_bench::ssim(clean.samples.data(), image.samples.data(), clean.width, clean.height, clean.channels)};
}

std::string number(double value, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// The plan the engine makes for `spec` on `image`: auto values resolved
// from the image's noise estimate, which the planner also gets.
std::unique_ptr<Plan> plan_as_engine(const FilterSpec& spec, const PnmImage& image) {
  const ImageShape shape{image.width, image.height, image.channels};
  if (!needs_noise(spec)) return make_plan(spec, shape);
  const NoiseEstimate noise =
      estimate_noise(ImageBuffer{const_cast<uint8_t*>(image.samples.data()), shape, SampleType::u8, 0});
  PlanRequest request;
  request.noise = &noise;
  request.noise_auto_flags = noise_auto_flags(spec);
  return make_plan(resolve_noise(spec, noise), shape, request);
}

// The plan's band kernel alone on the whole image as one band (any
// family: the CUDA backend's kernel table), fresh input per run.
std::string kernel_ms(const Plan& plan, const std::vector<uint8_t>& pixels, int repeats) {
  const cuda::DeviceKernelEntry* entry = cuda::find_device_kernel(plan.family);
  if (!entry) return "no GPU kernel for " + plan.family;
  const std::string why = entry->unsupported(plan);
  if (!why.empty()) return "unsupported: " + why;
  const int width = plan.shape.width, height = plan.shape.height, planes = plan.shape.channels;
  const edgewise_bench::ResidentBand in = edgewise_bench::resident_band(pixels, width, height, plan.reach, plan.pad);
  const size_t band_bytes = in.band.plane_stride * size_t(planes) * sizeof(float);
  cuda::DeviceMemory work(band_bytes), scratch(band_bytes * size_t(plan.scratch_bands)),
      out_memory(size_t(width) * size_t(height) * size_t(planes) * sizeof(float));
  cuda::DeviceBand band = in.band;
  band.data = work.as<float>();
  const cuda::DeviceOutput out{out_memory.as<float>(), 0, height, width, size_t(width), size_t(width) * size_t(height)};
  const std::unique_ptr<cuda::DeviceBandKernel> kernel = entry->make(plan);
  auto copy = [&] {
    cuda::check(cudaMemcpyAsync(work.as<float>(), in.band.data, band_bytes, cudaMemcpyDeviceToDevice, nullptr),
                "copying the band");
  };
  const float both = edgewise_bench::median_event_ms(
      [&] {
        copy();
        kernel->run(band, out, {}, scratch.as<float>(), nullptr);
      },
      repeats);
  cuda::check(cudaDeviceSynchronize(), "running the band kernel");
  return number(both - edgewise_bench::median_event_ms(copy, repeats), 2);
}

// run_filter from and into 8-bit RGB host buffers: median of `repeats`
// after a warm-up; the last run's report and output kept.
double end_to_end_ms(const FilterSpec& spec, const PnmImage& in, PnmImage& out, const std::string& backend,
                     RunReport& report, int repeats) {
  const ImageShape shape{in.width, in.height, in.channels};
  out = PnmImage{in.width, in.height, in.channels, std::vector<uint8_t>(in.samples.size())};
  RunOptions options;
  options.backend = backend;
  return edgewise_bench::median_ms(
      [&] {
        report = run_filter(spec, ImageBuffer{const_cast<uint8_t*>(in.samples.data()), shape, SampleType::u8, 0},
                            ImageBuffer{out.samples.data(), shape, SampleType::u8, 0}, options);
      },
      repeats);
}

struct Case {
  const char* method;
  const char* slug;  // the output's file name
  const char* settings;
  FilterSpec spec;
};

std::vector<Case> edgewise_cases() {
  const Registry& registry = builtin_registry();
  FilterSpec given(*registry.find("nlbayes"));
  throw_if_error(set_param(given, "sigma-n", 20.0));
  return {
      {"Edgewise nlbayes", "edgewise-nlbayes-sigma20", "sigma-n 20 given, defaults otherwise", given},
      {"Edgewise nlbayes", "edgewise-nlbayes-auto", "blind: defaults (sigma-n auto)",
       FilterSpec(*registry.find("nlbayes"))},
      {"Edgewise nlm", "edgewise-nlm-defaults", "defaults (h, sigma-n auto)", FilterSpec(*registry.find("nlm"))},
  };
}

int score_only(int argc, char** argv) {
  const PnmImage clean = edgewise_bench::read_pnm(argv[2]);
  std::printf("| image | PSNR dB | SSIM |\n|---|---|---|\n");
  for (int i = 3; i < argc; ++i) {
    const Scores s = score(clean, edgewise_bench::read_pnm(argv[i]));
    std::printf("| %s | %.2f | %.4f |\n", argv[i], s.psnr, s.ssim);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc >= 3 && std::strcmp(argv[1], "--score") == 0) return score_only(argc, argv);
    if (argc < 4) {
      std::fprintf(stderr,
                   "usage: bench_nlbayes_peer CLEAN.ppm NOISY.ppm OUTDIR [--backend cpu] [--peer METHOD SETTINGS "
                   "GPU_MS GPU_MS_IS END_TO_END_MS IMAGE.ppm]...\n       bench_nlbayes_peer --score CLEAN.ppm "
                   "IMAGE.ppm...\n");
      return 2;
    }
    const std::string outdir = argv[3];
    std::string backend = "cuda";
    std::vector<Row> peers;
    for (int i = 4; i < argc; ++i) {
      if (std::strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
        backend = argv[++i];
      } else if (std::strcmp(argv[i], "--peer") == 0 && i + 6 < argc) {
        peers.push_back({argv[i + 1], argv[i + 2], argv[i + 3], argv[i + 4], argv[i + 5], argv[i + 6]});
        i += 6;
      } else {
        std::fprintf(stderr, "bench_nlbayes_peer: unexpected argument %s\n", argv[i]);
        return 2;
      }
    }
    const PnmImage clean = edgewise_bench::read_pnm(argv[1]), noisy = edgewise_bench::read_pnm(argv[2]);
    if (noisy.width != clean.width || noisy.height != clean.height || clean.channels != 3 || noisy.channels != 3)
      throw std::runtime_error("the clean and noisy images must be RGB PPMs of one size");
    const bool gpu = backend == "cuda";
    std::string device = "the CPU backend (end to end only)";
    if (gpu && !find_backend(installed_backends(), "cuda")->usable(device)) {
      std::printf("no usable CUDA device: %s\n", device.c_str());
      return 1;
    }
    std::printf("device: %s\n%dx%d RGB, %s against %s\n\n", device.c_str(), clean.width, clean.height, argv[2],
                argv[1]);

    std::vector<Row> rows = peers;
    std::string ran_on;
    for (const Case& c : edgewise_cases()) {
      const std::string path = outdir + "/" + c.slug + ".ppm";
      std::string gpu_ms = "-";
      try {  // a failing row says why in the table; the others still run
        const std::unique_ptr<Plan> plan = plan_as_engine(c.spec, noisy);
        if (gpu) gpu_ms = kernel_ms(*plan, noisy.samples, 5);
        PnmImage out;
        RunReport report;
        const double ms = end_to_end_ms(c.spec, noisy, out, backend, report, 3);
        edgewise_bench::write_pnm(path, out);
        std::string settings = c.settings;
        if (!report.auto_values.empty())
          settings += "; auto chose " + report.auto_values + " (noise " + number(report.noise_sigma, 2) + ")";
        rows.push_back(
            {c.method, settings, gpu_ms, gpu ? "band kernel, CUDA events, data resident" : "-", number(ms, 1), path});
        ran_on = report.backend;
      } catch (const std::exception& error) {
        rows.push_back({c.method, c.settings, gpu_ms, "-", std::string("failed: ") + error.what(), path + ".failed"});
      }
    }

    const Scores input = score(clean, noisy);
    std::printf("| method | settings | GPU ms | GPU ms is | end to end ms | PSNR dB | SSIM |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    std::printf("| noisy input | | | | | %.2f | %.4f |\n", input.psnr, input.ssim);
    int status = 0;
    for (const Row& row : rows) {
      std::string psnr = "no image", ssim = "";
      try {
        const Scores s = score(clean, edgewise_bench::read_pnm(row.image));
        psnr = number(s.psnr, 2);
        ssim = number(s.ssim, 4);
      } catch (const std::exception& error) {
        psnr = error.what();
        status = 1;
      }
      std::printf("| %s | %s | %s | %s | %s | %s | %s |\n", row.method.c_str(), row.settings.c_str(),
                  row.gpu_ms.c_str(), row.gpu_ms_is.c_str(), row.end_to_end_ms.c_str(), psnr.c_str(), ssim.c_str());
    }
    std::printf("\nEdgewise's end to end ran on: %s\n", ran_on.c_str());
    return status;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_nlbayes_peer: %s\n", error.what());
    return 1;
  }
}
