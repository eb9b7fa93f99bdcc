// Golden outputs: every registered filter at its defaults (auto values
// included, from the learned noise reading) on one small photo, each output
// pinned by its SHA-256 in tests/golden/default_outputs.txt, per backend and
// instruction set, so that any change of a default, an automatic rule, the
// noise network or a filter's arithmetic fails here by name. The other
// tests hold outputs to tolerances and claims; this one says that an output
// changed at all, which is then either a mistake or a change to regenerate
// with its reason in the commit.
//
// The CPU's output may differ between instruction sets (core/cpu_isa.h: the
// row kernels and the noise network's forward pass): each set has its own
// lines, and ctest runs this test under every set the machine has
// (EDGEWISE_CPU_ISA, as test_fourier's CPU passes). A GPU backend's lines
// are checked where the build has it and a device is usable; where it has no
// lines the test says so (they are written on a machine with the device).
// The compiler is part of the key too (floating-point contraction differs
// between GCC and clang: CI's sanitizer stage builds with clang); a
// compiler with no lines at all is named and not checked, one with some
// lines must have them all.
//
// Regenerate (only for an intended change, saying why in the commit):
//   EDGEWISE_GOLDEN_WRITE=1 ctest --test-dir build -R '^GoldenOutputs\.' -j1
// rewrites the lines of each backend and instruction set that run here and
// keeps the others.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "backend.h"
#include "cpu_isa.h"
#include "engine.h"
#include "filter_registry.h"
#include "image_buffer.h"
#include "image_file.h"
#include "noise_estimate.h"
#include "sha256.h"

namespace {

// A 128 x 96 crop of the astronaut (helmet, face and flag: edges, texture
// and flat areas), large enough for one tile of the learned noise reading.
constexpr int kLeft = 64, kTop = 32, kWidth = 128, kHeight = 96;

#define EDGEWISE_STRING2(x) #x
#define EDGEWISE_STRING(x) EDGEWISE_STRING2(x)
#if defined(__clang__)
const char* const kCompiler = "clang-" EDGEWISE_STRING(__clang_major__);
#elif defined(__GNUC__)
const char* const kCompiler = "gcc-" EDGEWISE_STRING(__GNUC__);
#else
const char* const kCompiler = "other";
#endif

std::vector<uint8_t> crop() {
  const edgewise_cli::DecodedImage file = edgewise_cli::read_image(EDGEWISE_TEST_DATA "/astronaut.png");
  if (file.bits != 8 || file.channels != 3 || file.width < kLeft + kWidth || file.height < kTop + kHeight)
    throw std::runtime_error("astronaut.png: expected an 8-bit RGB photo of at least 192 x 128");
  std::vector<uint8_t> out(size_t(kWidth) * kHeight * 3);
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth * 3; ++x)
      out[(size_t(y) * kWidth) * 3 + x] = file.bytes[(size_t(kTop + y) * file.width + kLeft) * 3 + x];
  return out;
}

// "backend/isa filter" -> hash, from the committed file.
std::map<std::string, std::string> read_golden() {
  std::map<std::string, std::string> pinned;
  std::ifstream in(EDGEWISE_GOLDEN_FILE);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string where, filter, hash;
    fields >> where >> filter >> hash;
    pinned[where + " " + filter] = hash;
  }
  return pinned;
}

// Replaces the lines of `where` with `hashes` (filter -> hash), keeping the
// header and every other backend's lines.
void write_golden(const std::string& where, const std::map<std::string, std::string>& hashes) {
  std::ifstream in(EDGEWISE_GOLDEN_FILE);
  std::string line, text;
  while (std::getline(in, line))
    if (line.rfind(where + " ", 0) != 0) text += line + "\n";
  for (const auto& [filter, hash] : hashes) text += where + " " + filter + " " + hash + "\n";
  in.close();
  std::ofstream(EDGEWISE_GOLDEN_FILE) << text;
}

std::string output_hash(const edgewise::FilterInfo& filter, const std::string& backend,
                        const std::vector<uint8_t>& input) {
  const edgewise::FilterSpec spec(filter);  // its defaults
  std::vector<uint8_t> output(input.size());
  const edgewise::ImageShape shape{kWidth, kHeight, 3};
  edgewise::RunOptions options;
  options.backend = backend;
  options.backend_options.threads = 1;  // output does not depend on it (ThreadCountDoesNotChangeOutput)
  const edgewise::RunReport report =
      edgewise::run_filter(spec, {const_cast<uint8_t*>(input.data()), shape, edgewise::SampleType::u8, 0},
                           {output.data(), shape, edgewise::SampleType::u8, 0}, options);
  if (report.backend.rfind(backend, 0) != 0) throw std::runtime_error(filter.name + std::string(" ran on ") + report.backend);
  return edgewise::sha256_hex(edgewise::sha256(output.data(), output.size()));
}

// Why `provider`'s backend cannot run the filter's plan for the crop ("" when it can).
std::string unsupported_on(const edgewise::FilterInfo& filter, const edgewise::BackendProvider& provider,
                           const std::vector<uint8_t>& input) {
  const edgewise::ImageShape shape{kWidth, kHeight, 3};
  const edgewise::ImageBuffer buffer{const_cast<uint8_t*>(input.data()), shape, edgewise::SampleType::u8, 0};
  const edgewise::NoiseEstimate noise = edgewise::estimate_noise(buffer);
  const edgewise::FilterSpec spec = edgewise::resolve_noise(edgewise::FilterSpec(filter), noise);
  edgewise::PlanRequest request;
  request.noise = &noise;
  request.noise_auto_flags = edgewise::noise_auto_flags(edgewise::FilterSpec(filter));
  const std::unique_ptr<edgewise::Plan> plan = edgewise::make_plan(spec, shape, request);
  return provider.make({})->unsupported(*plan);
}

TEST(GoldenOutputs, EveryFilterAtItsDefaults) {
  const std::vector<uint8_t> input = crop();
  const std::map<std::string, std::string> pinned = read_golden();
  const bool writing = std::getenv("EDGEWISE_GOLDEN_WRITE") && std::string(std::getenv("EDGEWISE_GOLDEN_WRITE")) == "1";
  const std::string isa = edgewise::cpu_isa_name(edgewise::cpu_isa());
  int compared = 0, backends_run = 0;
  for (const auto& provider : edgewise::installed_backends()) {
    std::string description;
    if (!provider->built() || !provider->usable(description)) {
      std::printf("%s: not run here (%s); its lines are not checked\n", provider->id().c_str(),
                  provider->built() ? description.c_str() : "not built");
      continue;
    }
    ++backends_run;
    const std::string where = provider->id() + "/" + isa + "/" + kCompiler;
    bool compiler_pinned = false;
    for (const auto& [key, hash] : pinned)
      if (key.find("/" + std::string(kCompiler) + " ") != std::string::npos) compiler_pinned = true;
    std::map<std::string, std::string> hashes;
    int missing = 0;
    std::string unpinned;  // "edgewise:NAME, ..." (a new filter's first run)
    for (const edgewise::FilterInfo* filter : edgewise::builtin_registry().filters()) {
      // A GPU backend without the filter's kernels (the learned filter on
      // CUDA, issue 36) is refused by name: the engine runs it on the CPU,
      // whose lines pin it.
      if (!provider->is_fallback()) {
        const std::string refusal = unsupported_on(*filter, *provider, input);
        if (!refusal.empty()) {
          std::printf("%s %s: not run on this backend (%s)\n", where.c_str(), filter->name, refusal.c_str());
          continue;
        }
      }
      const std::string hash = output_hash(*filter, provider->id(), input);
      hashes[filter->name] = hash;
      const auto found = pinned.find(where + " " + filter->name);
      std::printf("%s %s %s%s\n", where.c_str(), filter->name, hash.c_str(),
                  found == pinned.end() ? " (no pinned hash)" : found->second == hash ? "" : " (CHANGED)");
      if (writing) continue;
      if (found == pinned.end()) {
        ++missing;
        unpinned += std::string(unpinned.empty() ? "" : ", ") + "edgewise:" + filter->name;
        continue;
      }
      EXPECT_EQ(hash, found->second) << filter->name << "'s default output on " << where
                                     << " changed: if intended, regenerate (tests/test_golden.cpp's header)";
      ++compared;
    }
    if (writing) {
      write_golden(where, hashes);
      std::printf("%s: %zu lines written to %s\n", where.c_str(), hashes.size(), EDGEWISE_GOLDEN_FILE);
    } else if (missing > 0 && !compiler_pinned) {
      std::printf("%s: no hashes pinned for %s builds; not checked\n", where.c_str(), kCompiler);
    } else if (missing > 0 && provider->is_fallback()) {
      ADD_FAILURE() << where << ": no pinned hash for " << unpinned << ": record it (a new filter's default output) with"
                    << "\n  EDGEWISE_GOLDEN_WRITE=1 ctest --test-dir build -R '^GoldenOutputs\\.' -j1"
                    << "\nand commit " << EDGEWISE_GOLDEN_FILE;
    } else if (missing > 0) {
      std::printf("%s: %d filters have no pinned hash here; they are pinned on a machine with this device\n",
                  where.c_str(), missing);
    }
  }
  EXPECT_GE(backends_run, 1);
  if (!writing && std::string(kCompiler).rfind("gcc", 0) == 0) {  // CI's first stage: Debian's GCC
    EXPECT_GE(compared, int(edgewise::builtin_registry().filters().size())) << "the CPU's, at least";
  }
}

}  // namespace
