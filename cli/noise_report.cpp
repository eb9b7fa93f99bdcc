#include "noise_report.h"

#include <cstdio>
#include <stdexcept>

namespace edgewise_cli {

namespace {

std::string fixed(double value, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

const char* channel_label(size_t channel, size_t channels) {
  static const char* const rgb[] = {"R", "G", "B"};
  return channels == 1 ? "grey" : rgb[channel];
}

// One channel's model for --verbose: its noise level function (sigma at
// each intensity bin, "-" where the bin could not be measured), the
// spectrum's parts and what each scale read.
std::string model_lines(const edgewise::ChannelNoise& channel) {
  std::string text = "\t" + channel.name;
  for (const edgewise::NoiseLevelBin& bin : channel.bins)
    text += "\t" + fixed(bin.intensity, 1) + ":" + (bin.valid ? fixed(bin.sigma, 2) : "-");
  text += "\n\t" + channel.name + "\tspectrum";
  for (int j = 0; j < edgewise::kSpectrumParts; ++j)
    text += " " + std::string(j == 0 ? "white " : "blur " + fixed(edgewise::kSpectrumBlurs[j], 1) + " px ") +
            fixed(100 * channel.spectrum.shares[size_t(j)], 0) + "%" + (j + 1 < edgewise::kSpectrumParts ? "," : "");
  text += "\tscales";
  for (const edgewise::NoiseScaleReading& scale : channel.scales)
    text += " " + std::to_string(1 << scale.scale) + "x:" +
            (scale.valid ? fixed(scale.reading_ratio, 3) + "/" + fixed(scale.texture_ratio, 3) : std::string("-"));
  return text + "\n";
}

}  // namespace

std::string noise_report(const std::string& path, const edgewise::NoiseEstimate& estimate, bool verbose) {
  const size_t channels = estimate.channels.size();
  std::string text = path;
  for (size_t c = 0; c < channels; ++c) {
    const edgewise::ChannelNoise& channel = estimate.channels[c];
    text += std::string("\t") + channel_label(c, channels) + "=" + (channel.valid ? fixed(channel.sigma, 2) : "-");
  }
  text += "\tmedian=" + (estimate.valid() ? fixed(estimate.sigma(), 2) : "-") + "\n";
  if (!verbose) return text;
  text += std::string("\treading\t") + edgewise::noise_reading_name(estimate.reading) + "\n";
  for (const auto* set : {&estimate.channels, &estimate.opponent})
    for (const edgewise::ChannelNoise& channel : *set) text += model_lines(channel);
  return text;
}

BatchReport estimate_noise_of_files(const std::vector<std::string>& inputs, const JobOptions& files, bool verbose,
                                    int threads) {
  for (const std::string& input : inputs) detect_format(input);  // exists, and is an image
  edgewise::NoiseEstimateOptions options;
  options.threads = threads;
  BatchReport report;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& input = inputs[i];
    try {
      DecodedImage image = read_image(input, files.limits);
      const edgewise::NoiseEstimate estimate = edgewise::estimate_noise(view(image), options);
      if (!estimate.reading_note.empty())
        std::fprintf(stderr, "edgewise: %s: %s\n", input.c_str(), estimate.reading_note.c_str());
      if (!estimate.measured())
        throw std::runtime_error(input + ": cannot estimate its noise: " + estimate.fallback_reason);
      std::fputs(noise_report(input, estimate, verbose).c_str(), stdout);
      std::fflush(stdout);
      ++report.written;
    } catch (const std::exception& error) {
      std::fprintf(stderr, "edgewise: %s\n", error.what());
      report.failed.push_back(input);
      if (files.fail_fast && i + 1 < inputs.size()) {
        report.stopped = true;
        break;
      }
    }
  }
  return report;
}

}  // namespace edgewise_cli
