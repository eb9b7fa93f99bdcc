// The exact bilateral filter (Tomasi & Manduchi, ICCV 1998) written the
// naive way in double precision, independently of core/: the yardstick the
// backends are compared with. Clamp-to-edge square window, no border left
// unfiltered:
//   out(p) = sum_q w(p,q) I(q) / sum_q w(p,q),
//   w(p,q) = exp(-|p-q|^2 / (2 sigma_s^2)) * R(d(p,q)) * alpha(q).
#pragma once

#include <cstddef>
#include <vector>

namespace edgewise_reference {

enum class Mode { per_channel, rgb, lab };
enum class Kernel { gaussian, tukey, lorentz, huber };

struct BilateralSettings {
  Mode mode = Mode::rgb;
  Kernel kernel = Kernel::gaussian;
  double sigma_s = 3.0;
  double sigma_r = 20.0;  // 0-255 code values (per-channel, rgb, grey); Delta E (lab)
  int radius = 0;         // 0: ceil(2 sigma_s)
  int iterations = 1;
  // The linear working space: each pass decodes the colour samples with the
  // sRGB transfer curve, filters linear light (sigma_r on the 0-255 scale of
  // linear values) and encodes the result again. Lab mode is unaffected.
  bool linear = false;
  // The variance-adaptive filter: per pixel, v = sum w d^2 / sum w with the
  // weights above and d in normalized units (code values / 255, Delta E /
  // 100), then the filter again with sigma_r' = clamp(k (sqrt v + eps),
  // min, max) (normalized). Per-channel mode: one v and sigma_r' per channel.
  bool adaptive = false;
  double adapt_k = 0.5, adapt_eps = 0.01, adapt_min = 0.002, adapt_max = 1.0;
};

// An interleaved image: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA.
struct ReferenceImage {
  int width = 0;
  int height = 0;
  int channels = 0;
  std::vector<double> samples;

  double& at(int x, int y, int c) {
    return samples[(std::size_t(y) * std::size_t(width) + std::size_t(x)) * std::size_t(channels) + std::size_t(c)];
  }
  double at(int x, int y, int c) const {
    return samples[(std::size_t(y) * std::size_t(width) + std::size_t(x)) * std::size_t(channels) + std::size_t(c)];
  }
};

int reference_radius(const BilateralSettings& settings);

// R(x) for a distance x in the units of sigma_r.
double range_weight(Kernel kernel, double distance, double sigma_r);

// The total weight sum_q w(p,q) of pixel (x, y)'s window in one pass, and
// its largest single tap weight, for colour channel `channel` (joint modes
// share one): explains a failure where every weight is vanishingly small.
struct WindowWeights {
  double sum = 0.0;
  double largest = 0.0;
};
WindowWeights window_weights(const ReferenceImage& input, const BilateralSettings& settings, int x, int y, int channel);

// Applies the filter settings.iterations times.
ReferenceImage bilateral_reference(const ReferenceImage& input, const BilateralSettings& settings);

// The adaptive filter's sigma_r' of the first pass per pixel, normalized
// and divided by adapt_max (so adapt_max is 1): one channel, or one per
// colour channel in per-channel mode.
ReferenceImage adaptive_sigma_reference(const ReferenceImage& input, const BilateralSettings& settings);

}  // namespace edgewise_reference
