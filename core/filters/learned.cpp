// The learned denoiser's parameter table, planner, shipped weights and
// registry row.
#include "learned.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "learned_noise.h"
#include "model_files.h"

namespace edgewise {

namespace {

constexpr const char* kShippedFile = "denoiser-v1.ewnn";

const ParamGroup& learned_group() {
  static const ParamGroup group = ParamGroupBuilder()
#define EW_DEF_TABLE
#include "learned_params.def"
                                      .build();
  return group;
}

ShippedDenoiseNet load_shipped() {
  ShippedDenoiseNet shipped;
  const ModelLocation location =
      find_shipped_model("EDGEWISE_DENOISE_NET", kShippedFile, "the learned denoiser", "the learned denoiser");
  shipped.path = location.path;
  if (shipped.path.empty()) {
    shipped.problem = location.problem;
    return shipped;
  }
  try {
    shipped.net = std::make_shared<const DenoiseNet>(load_denoise_net(shipped.path));
  } catch (const std::exception& error) {
    shipped.problem = error.what();
  }
  return shipped;
}

const DenoiseNet& loaded_denoiser() {
  const ShippedDenoiseNet& shipped = shipped_denoise_net();
  if (!shipped.net) throw std::invalid_argument("the learned filter cannot run: " + shipped.problem);
  return *shipped.net;
}

std::unique_ptr<Plan> plan_learned(const FilterSpec& spec, const ImageShape&, const PlanRequest& request) {
  if (!request.extra_outputs.empty())
    throw std::invalid_argument("the learned filter makes no " + request.extra_outputs.front() + " output");
  const LearnedParameters n = learned_parameters(spec);
  auto plan = std::make_unique<LearnedPlan>();
  plan->family = "learned";
  plan->denoiser = shipped_denoise_net().net;
  const DenoiseNet& d = loaded_denoiser();
  plan->options.strength = n.strength;
  plan->untouched = n.strength == 0.0f;
  if (request.noise_auto("sigma-n")) {
    const ShippedNoiseNet& noise_net = shipped_noise_net();
    if (noise_net.net && noise_net.net->sha256_hex == d.noise_net_sha256) {
      plan->noise_net = noise_net.net;
      plan->options.luminance = request.noise->luminance_multiplier;
      plan->options.colour = request.noise->colour_multiplier;
      plan->auto_choices = "noise map per 64 px tile";
    } else {
      // The estimate (statistical, or a network this denoiser was not
      // trained with) as white noise, scaled as it was.
      plan->options.sigma = std::max(double(n.sigma_n), kNoiseFloor);
      const std::string why = noise_net.net ? "the noise network " + noise_net.path +
                                                  " is not the one the learned denoiser was trained with"
                                            : noise_net.problem;
      plan->auto_choices = "white noise of sigma-n, no noise map";
      plan->notice = "the learned filter has no noise map (" + why + "): it takes the noise as white noise of sigma " +
                     std::to_string(int(std::lround(plan->options.sigma))) + " everywhere";
    }
  } else {
    // A number is white noise of that sigma (0: the least the map holds).
    plan->options.sigma = std::max(double(n.sigma_n), 1e-3);
  }
  plan->reach = learned_reach(d);
  plan->pad = 0;  // the kernel extends the image by mirroring itself
  return plan;
}

// Before the weights are loaded a front end still asks: the v1 program's
// figures (64 px reach, alignment 8, 64 px tiles and 8 px cells).
constexpr int kReachWithoutWeights = 64 + 8 + 64 + 16;

int learned_filter_reach(const FilterSpec&) {
  const ShippedDenoiseNet& shipped = shipped_denoise_net();
  return shipped.net ? learned_reach(*shipped.net) : kReachWithoutWeights;
}

// The noise network's tiles and the denoiser's tiles lie on grids from the
// image's origin (learned_denoise.h).
int learned_region_grid(const FilterSpec&) {
  const ShippedDenoiseNet& shipped = shipped_denoise_net();
  return shipped.net ? learned_grid(*shipped.net) : kLearnedExtension;
}

double learned_noise_value(const FilterSpec& spec, const ParamInfo&, const NoiseEstimate& noise) {
  return auto_noise_sigma(spec, noise);
}

}  // namespace

const ShippedDenoiseNet& shipped_denoise_net() {
  static const ShippedDenoiseNet shipped = load_shipped();
  return shipped;
}

#define EW_IO_LIST "learned_params.def"
#define EW_IO_TYPE LearnedParameters
#define EW_IO_READER learned_parameters
#define EW_IO_WRITER learned_spec
#define EW_IO_FILTER learned_filter()
#include "param_io.h"

const FilterInfo& learned_filter() {
  static const FilterInfo info = [] {
    FilterInfo row;
    row.name = "learned";
    row.title = "Edgewise Learned Denoise";
    row.summary = "a convolutional network trained on camera noise, told the noise by the noise network's map";
    row.pdb_procedure = "plug-in-edgewise-learned";
    row.pdb_blurb = "Denoising by a network trained on camera noise (a U-Net told the noise by a noise map)";
    row.menu_label = "Edgewise _Learned Denoise...";
    row.groups = {&learned_group()};
    row.reach = learned_filter_reach;
    row.region_grid = learned_region_grid;
    row.noise_value = learned_noise_value;
    row.auto_follows = "sigma-n: the noise network's map, per colour channel, place and grain";
    row.typed_defaults = [] { return learned_spec(LearnedParameters{}); };
    row.plan = plan_learned;
    // Not recommended on a CPU (rank 0, as nlbayes): about 2.5 s per
    // megapixel on 2 cores, chosen by name. Luminance and Colour scale its
    // map's luma and chroma apart.
    row.denoise.method = "Learned (slow on a CPU)";
    row.denoise.good_for =
        "camera noise and smooth gradients; a network trained on photographs; may smooth the finest texture; "
        "seconds per megapixel without a GPU";
    row.denoise.separates = true;
    // For correlated and colour noise (camera noise: 0.82 dB above nlbayes
    // on average, docs/quality.md), not for fine, even grain, where nlbayes
    // is ahead on the textured photos; 139 processor-seconds for 24 MP on
    // the CPU (user guide's table).
    row.denoise.suits = kCorrelatedNoise | kColourNoise;
    row.denoise.rank = 0;
    // With a GPU, above nlbayes (10) for the noise it suits: its kernel
    // (cuda/learned_cuda.h) runs 24 MP in about 0.14 s of kernels on an
    // H100 (bench/RESULTS.md), within issue 36's bounds of the CPU's output.
    row.denoise.gpu_rank = 11;
    row.denoise.cpu_seconds_per_megapixel = 5.8;
    return row;
  }();
  return info;
}

}  // namespace edgewise
