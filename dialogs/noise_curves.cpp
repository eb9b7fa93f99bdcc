#include "noise_curves.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "filter_registry.h"

namespace edgewise_dialog {

namespace {

// The luminance and colour parts of the noise in per-channel code values:
// the opponent channels are orthonormal (core/opponent_color.h), so a
// channel's noise variance is on average (vY + vC1 + vC2) / 3; luminance
// vY / 3 and colour (vC1 + vC2) / 3 of it, which add up (in quadrature) to
// the per-channel noise the Auto button shows for noise independent
// between channels, and show camera noise's split between them.
constexpr double kLuminanceScale = 0.57735026918962576;  // 1 / sqrt(3)
constexpr double kColourScale = 0.81649658092772603;     // sqrt(2 / 3): two channels' mean square, then / 3

// The noise of `parts` together (root mean square) at each intensity one
// of them has a measured bin at, times `scale`; one level over the whole
// range when none has.
NoiseCurve curve_of(const std::string& name, const std::vector<const edgewise::ChannelNoise*>& parts,
                    double scale = 1.0) {
  NoiseCurve curve;
  curve.name = name;
  std::vector<double> at;
  for (const edgewise::ChannelNoise* part : parts)
    for (const edgewise::NoiseLevelBin& bin : part->bins)
      if (bin.valid) at.push_back(bin.intensity);
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  curve.measured = !at.empty();
  if (at.empty()) at = {0.0, 255.0};
  for (double intensity : at) {
    double variance = 0;
    for (const edgewise::ChannelNoise* part : parts) {
      const double sigma = curve.measured ? part->sigma_at(intensity) : part->sigma;
      variance += sigma * sigma;
    }
    curve.points.emplace_back(intensity, scale * std::sqrt(variance / double(parts.size())));
  }
  return curve;
}

}  // namespace

std::vector<NoiseCurve> noise_curves(const edgewise::NoiseEstimate& noise) {
  if (noise.opponent.size() == 3)
    return {curve_of("luminance", {&noise.opponent[0]}, kLuminanceScale),
            curve_of("colour", {&noise.opponent[1], &noise.opponent[2]}, kColourScale)};
  if (noise.channels.size() == 1) return {curve_of("grey", {&noise.channels[0]})};
  std::vector<const edgewise::ChannelNoise*> all;
  for (const edgewise::ChannelNoise& channel : noise.channels) all.push_back(&channel);
  if (all.empty()) return {};
  return {curve_of("noise", all)};
}

std::string noise_caption(const edgewise::NoiseEstimate& noise) {
  if (!noise.valid()) return "The noise could not be measured: the image is too small.";
  if (noise.fallback)
    return "Could not be measured here (" + noise.fallback_reason + "); the level shown is a rough guess, " +
           edgewise::kNoiseFallbackRule + ".";
  // One figure first, the one Auto follows (auto_noise_sigma); the plot's
  // two lines after it, saying what they are and how they relate to it.
  char text[400];
  std::snprintf(text, sizeof text, "Noise %.1f", edgewise::auto_noise_sigma(noise));
  std::string caption = std::string(text) +
                        (noise.channels.size() > 1 ? " (the middle of red, green and blue" : " (the grey channel's") +
                        ", in code values of 0-255: what every Auto setting follows), ";
  caption += noise.reading == edgewise::NoiseReading::learned
                 ? "read by the learned noise map, which tells texture and colour blotches from noise."
                 : "measured in the flattest areas (statistical reading).";
  if (noise.opponent.size() == 3) {
    const auto level = [](const edgewise::ChannelNoise& channel) { return channel.sigma; };
    const double colour =
        kColourScale * std::sqrt((std::pow(level(noise.opponent[1]), 2) + std::pow(level(noise.opponent[2]), 2)) / 2);
    std::snprintf(text, sizeof text,
                  " The plot splits it into its brightness and colour parts, which methods treat apart: "
                  "luminance %.1f, colour %.1f per channel. They add up (in quadrature) to the figure only where "
                  "the channels' noise is unrelated; camera noise rarely is.",
                  kLuminanceScale * level(noise.opponent[0]), colour);
    caption += text;
  }
  return noise.reading_note.empty() ? caption : caption + " Note: " + noise.reading_note + ".";
}

}  // namespace edgewise_dialog
