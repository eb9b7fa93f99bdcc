#include "denoise.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <thread>

#include "opponent_color.h"

namespace edgewise {

const ParamGroup& denoise_group() {
  static const ParamGroup group = ParamGroupBuilder()
#define EW_DEF_TABLE
#include "denoise_params.def"
                                      .build();
  return group;
}

const FilterInfo& denoise_controls() {
  static const FilterInfo info = [] {
    FilterInfo row;
    row.name = "denoise";
    row.title = "Denoise";
    row.summary = "the Denoise front end's own controls";
    row.groups = {&denoise_group()};
    return row;
  }();
  return info;
}

namespace {

void scale_channel(ChannelNoise& channel, double factor) {
  channel.sigma *= factor;
  for (NoiseLevelBin& bin : channel.bins) {
    bin.sigma *= factor;
    bin.reading *= factor;
    bin.texture *= factor;
  }
}

// The variance factor of colour channel `c` at an intensity: its opponent
// parts' variances there, weighted by the transform, each times its
// multiplier squared (see scaled_noise).
double channel_factor(const NoiseEstimate& noise, int c, double intensity, const double (&multiplier)[3]) {
  double parts[3] = {1, 1, 1};  // white when the opponent channels were not measured
  bool measured = noise.opponent.size() == 3;
  for (int k = 0; measured && k < 3; ++k) measured = noise.opponent[size_t(k)].valid;
  if (measured) {
    for (int k = 0; k < 3; ++k) {
      const double sigma =
          intensity < 0 ? noise.opponent[size_t(k)].sigma : noise.opponent[size_t(k)].sigma_at(intensity);
      parts[k] = sigma * sigma;
    }
    if (parts[0] + parts[1] + parts[2] <= 0) parts[0] = parts[1] = parts[2] = 1;
  }
  double scaled = 0, whole = 0;
  for (int k = 0; k < 3; ++k) {
    const double weight = kOpponent[k][c] * kOpponent[k][c] * parts[k];
    scaled += weight * multiplier[k] * multiplier[k];
    whole += weight;
  }
  return whole > 0 ? std::sqrt(scaled / whole) : multiplier[0];
}

}  // namespace

NoiseEstimate scaled_noise(const NoiseEstimate& noise, double strength, double luminance, double colour) {
  NoiseEstimate scaled = noise;
  const double multiplier[3] = {strength * luminance, strength * colour, strength * colour};
  scaled.luminance_multiplier *= multiplier[0];
  scaled.colour_multiplier *= multiplier[1];
  for (size_t k = 0; k < scaled.opponent.size() && k < 3; ++k) scale_channel(scaled.opponent[k], multiplier[k]);
  if (scaled.channels.size() != 3) {
    for (ChannelNoise& channel : scaled.channels) scale_channel(channel, multiplier[0]);
    return scaled;
  }
  for (int c = 0; c < 3; ++c) {
    ChannelNoise& channel = scaled.channels[size_t(c)];
    channel.sigma *= channel_factor(noise, c, -1, multiplier);
    for (NoiseLevelBin& bin : channel.bins) {
      const double factor = channel_factor(noise, c, bin.intensity, multiplier);
      bin.sigma *= factor;
      bin.reading *= factor;
      bin.texture *= factor;
    }
  }
  return scaled;
}

NoiseCharacter characterise(const NoiseEstimate& noise) {
  NoiseCharacter character;
  character.measured = noise.measured();
  const bool colour = noise.opponent.size() == 3;
  const std::vector<ChannelNoise>& planes = colour ? noise.opponent : noise.channels;
  double variance = 0, white = 0;
  for (const ChannelNoise& plane : planes) {
    if (!plane.valid) continue;
    variance += plane.sigma * plane.sigma;
    white += plane.sigma * plane.sigma * plane.spectrum.shares[0];
  }
  character.fine_share = variance > 0 ? white / variance : 1.0;
  if (!planes.empty() && planes[0].valid) character.luminance = planes[0].sigma;
  if (colour) {
    double chroma = 0;
    for (size_t k = 1; k < 3; ++k) chroma += planes[k].valid ? planes[k].sigma * planes[k].sigma : 0.0;
    character.colour = std::sqrt(chroma / 2);
  }
  if (!character.measured) return character;  // the fallback rule reads no spectrum: no kind
  std::vector<std::string> words;
  if (colour && character.colour >= kColourOverLuma * character.luminance && character.colour > 0) {
    character.kinds |= kColourNoise;
    words.emplace_back("colour noise");
  }
  if (character.fine_share < kFineShareBelow) {
    character.kinds |= kCorrelatedNoise;
    words.emplace_back("correlated");
  }
  if (character.kinds == 0) {
    character.kinds = kFineNoise;
    words.emplace_back("fine, even grain");
  }
  for (const std::string& word : words) character.words += (character.words.empty() ? "" : ", ") + word;
  return character;
}

std::vector<const FilterInfo*> denoise_methods(const Registry& registry) {
  std::vector<const FilterInfo*> methods;
  for (const FilterInfo* filter : registry.filters())
    if (filter->denoise.method[0]) methods.push_back(filter);
  return methods;
}

namespace {

int rank_of(const FilterInfo& method, bool gpu) {
  return gpu && method.denoise.gpu_rank ? method.denoise.gpu_rank : method.denoise.rank;
}

// The highest-ranked method that `accept` takes, the first on a tie.
template <class Accept>
const FilterInfo* best(const std::vector<const FilterInfo*>& methods, bool gpu, Accept accept) {
  const FilterInfo* chosen = nullptr;
  for (const FilterInfo* method : methods)
    if (accept(method->denoise.suits) && (!chosen || rank_of(*method, gpu) > rank_of(*chosen, gpu))) chosen = method;
  return chosen;
}

// The method for the noise's kinds: among those that suit every kind, else
// any kind, else all (every method where the noise was not measured).
const FilterInfo* choose(const std::vector<const FilterInfo*>& methods, const NoiseCharacter& character, bool gpu) {
  const auto any = [](unsigned) { return true; };
  if (!character.measured) return best(methods, gpu, any);
  const unsigned kinds = character.kinds;
  const FilterInfo* chosen = best(methods, gpu, [kinds](unsigned suits) { return (suits & kinds) == kinds; });
  if (!chosen) chosen = best(methods, gpu, [kinds](unsigned suits) { return (suits & kinds) != 0; });
  if (!chosen) chosen = best(methods, gpu, any);
  return chosen;
}

}  // namespace

bool runs_on_gpu(const std::string& backend, const BackendList& backends) {
  for (const auto& provider : backends) {
    if (provider->is_fallback() || (backend != "auto" && backend != provider->id())) continue;
    std::string description;
    if (provider->built() && provider->usable(description)) return true;
  }
  return false;
}

RecommendContext recommend_context(const std::string& backend, int width, int height, const BackendList& backends) {
  RecommendContext context;
  context.gpu = runs_on_gpu(backend, backends);
  context.megapixels = double(width) * double(height) * 1e-6;
  context.threads = std::max(1, int(std::thread::hardware_concurrency()));
  return context;
}

Recommendation recommend_method(const NoiseEstimate& noise, const Registry& registry,
                                const RecommendContext& context) {
  const std::vector<const FilterInfo*> methods = denoise_methods(registry);
  Recommendation recommendation;
  if (methods.empty()) return recommendation;
  const NoiseCharacter character = characterise(noise);
  const FilterInfo* chosen = choose(methods, character, context.gpu);
  recommendation.method = chosen;
  recommendation.reason = (character.measured ? character.words : std::string("noise not measured")) + ": " +
                          chosen->denoise.method;
  if (context.gpu) {
    if (chosen->denoise.cpu_seconds_per_megapixel > 0)
      recommendation.note = "The best for this noise: the GPU makes it quick.";
    return recommendation;
  }
  // What a GPU would have recommended, and its time on this processor.
  const FilterInfo* better = choose(methods, character, true);
  if (better != chosen && better->denoise.cpu_seconds_per_megapixel > 0 && context.megapixels > 0) {
    const double seconds =
        context.megapixels * better->denoise.cpu_seconds_per_megapixel / double(std::max(context.threads, 1));
    char text[200];
    std::snprintf(text, sizeof text, "With a GPU: %s, which takes about %.0f s for this image on this processor.",
                  better->denoise.method, std::max(1.0, std::round(seconds)));
    recommendation.note = text;
  }
  return recommendation;
}

bool splits_luminance_colour(const FilterInfo& method, int colour_channels) {
  return method.denoise.separates && colour_channels >= 3;
}

DenoiseSettings default_denoise(const Registry& registry) {
  DenoiseSettings denoise;
  const std::vector<const FilterInfo*> methods = denoise_methods(registry);
  denoise.settings = default_settings(methods.empty() ? registry.default_filter() : *methods.front());
  return denoise;
}

namespace {

template <class Denoise>
auto field_of(Denoise& denoise, const std::string& flag) -> decltype(&denoise.strength) {
  if (flag == "strength") return &denoise.strength;
  if (flag == "luminance") return &denoise.luminance;
  if (flag == "colour") return &denoise.colour;
  return nullptr;
}

const ParamInfo* denoise_param(const std::string& flag) {
  for (const ParamInfo& info : denoise_group().params)
    if (flag == info.cli_flag) return &info;
  return nullptr;
}

}  // namespace

std::string set_denoise_value(DenoiseSettings& denoise, const std::string& flag, double value) {
  const ParamInfo* info = denoise_param(flag);
  double* field = field_of(denoise, flag);
  if (!info || !field) return "unknown Denoise control " + flag;
  if (!(value >= info->hard_min && value <= info->hard_max)) return range_message(*info, value);
  *field = value;
  return "";
}

double denoise_value(const DenoiseSettings& denoise, const std::string& flag) {
  const double* field = field_of(denoise, flag);
  return field ? *field : 0.0;
}

std::string format_denoise(const DenoiseSettings& denoise, const Registry& registry) {
  std::string text =
      std::string("--") + kDenoisePrefix + "method " + (denoise.method ? denoise.method->name : "recommended");
  for (const ParamInfo& info : denoise_group().params)
    text += std::string(" --") + kDenoisePrefix + info.cli_flag + " " +
            value_text(info, denoise_value(denoise, info.cli_flag));
  return text + " " + format_arguments(denoise.settings, registry);
}

std::vector<std::string> read_denoise(const std::string& text, DenoiseSettings& denoise, const Registry& registry,
                                      const BackendList& backends) {
  std::vector<std::string> problems;
  std::istringstream words(text);
  std::string flag, value, rest;
  const std::string prefix = std::string("--") + kDenoisePrefix;
  while (words >> flag) {
    if (flag.rfind(prefix, 0) != 0) {
      rest += flag + " ";
      continue;
    }
    if (!(words >> value)) {
      problems.push_back("option " + flag + " needs a value");
      break;
    }
    const std::string name = flag.substr(prefix.size());
    if (name == "method") {
      const FilterInfo* method = value == "recommended" ? nullptr : registry.find(value);
      if (value != "recommended" && (!method || !method->denoise.method[0]))
        problems.push_back("unknown Denoise method " + value + ": the recommended one is used");
      else
        denoise.method = method;
      continue;
    }
    const ParamInfo* info = denoise_param(name);
    char* end = nullptr;
    const double number = std::strtod(value.c_str(), &end);
    const std::string error = !info                          ? "unknown option " + flag
                              : end == value.c_str() || *end ? "invalid " + name + " " + value + ": not a number"
                                                             : set_denoise_value(denoise, name, number);
    if (!error.empty()) problems.push_back(error);
  }
  for (const std::string& problem : read_arguments(rest, denoise.settings, registry, backends))
    problems.push_back(problem);
  return problems;
}

int method_number(const FilterInfo* method, const Registry& registry) {
  if (!method) return -1;
  const auto& filters = registry.filters();
  return int(std::find(filters.begin(), filters.end(), method) - filters.begin());
}

std::string method_numbers_text(const Registry& registry) {
  std::string text = "-1: the one the noise model recommends for the image";
  for (const FilterInfo* method : denoise_methods(registry))
    text += "; " + std::to_string(method_number(method, registry)) + ": " + method->denoise.method + ", the " +
            method->name + " filter";
  return text;
}

std::string method_for_number(double number, const Registry& registry, const FilterInfo*& method) {
  if (number == -1) {
    method = nullptr;
    return "";
  }
  const auto& filters = registry.filters();
  if (number >= 0 && number < double(filters.size()) && number == std::floor(number) &&
      filters[size_t(number)]->denoise.method[0]) {
    method = filters[size_t(number)];
    return "";
  }
  return "invalid method " + number_text(number) + ": expected " + method_numbers_text(registry);
}

DenoiseJob plan_denoise(const DenoiseSettings& denoise, const NoiseEstimate& measured, int colour_channels,
                        const Registry& registry, const RecommendContext& context) {
  DenoiseJob job;
  job.method = denoise.method;
  if (!job.method) {
    const Recommendation recommendation = recommend_method(measured, registry, context);
    job.method = recommendation.method;
    job.reason = recommendation.reason;
  }
  if (!job.method) job.method = &registry.default_filter();
  job.settings =
      &denoise.settings.spec.filter() == job.method ? denoise.settings : choose_filter(denoise.settings, *job.method);
  const bool apart = splits_luminance_colour(*job.method, colour_channels);
  job.noise = scaled_noise(measured, denoise.strength, apart ? denoise.luminance : 1.0, apart ? denoise.colour : 1.0);
  return job;
}

}  // namespace edgewise
