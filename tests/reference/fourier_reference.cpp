#include "fourier_reference.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>

#include "lab_reference.h"

namespace edgewise_reference {

namespace {

constexpr double kPi = 3.14159265358979323846;

bool has_alpha(const ReferenceImage& image) { return image.channels == 2 || image.channels == 4; }

// The colour planes in working units: code values, or L*a*b*.
std::vector<double> working(const ReferenceImage& input, bool lab) {
  const int colors = input.channels >= 3 ? 3 : 1;
  std::vector<double> work(size_t(input.width) * size_t(input.height) * size_t(colors));
  for (int y = 0; y < input.height; ++y)
    for (int x = 0; x < input.width; ++x) {
      double* to = &work[(size_t(y) * size_t(input.width) + size_t(x)) * size_t(colors)];
      if (lab) {
        const double rgb[3] = {input.at(x, y, 0), input.at(x, y, 1), input.at(x, y, 2)};
        rgb_to_lab(rgb, to);
      } else {
        for (int c = 0; c < colors; ++c) to[c] = 255.0 * input.at(x, y, c);
      }
    }
  return work;
}

// Working values back into the output image's colour channels.
void store(ReferenceImage& output, int x, int y, const double* value, bool lab) {
  if (lab) {
    double rgb[3];
    lab_to_rgb(value, rgb);
    for (int c = 0; c < 3; ++c) output.at(x, y, c) = rgb[c];
  } else {
    for (int c = 0; c < (output.channels >= 3 ? 3 : 1); ++c) output.at(x, y, c) = value[c] / 255.0;
  }
}

// Along one axis, the weight of each sample position q (0 .. length - 1)
// for the pixel at p: the window's weights of the virtual positions summed
// onto the sample that clamp-to-edge makes of them.
struct AxisWeights {
  int length = 0;
  std::vector<double> weights;   // length x length
  std::vector<int> first, last;  // per p, the nonzero weights' q range
  double at(int p, int q) const { return weights[size_t(p) * size_t(length) + size_t(q)]; }
  void find_ranges() {
    for (int p = 0; p < length; ++p) {
      int lo = length, hi = -1;
      for (int q = 0; q < length; ++q)
        if (at(p, q) != 0.0) {
          lo = std::min(lo, q);
          hi = q;
        }
      first.push_back(lo);
      last.push_back(hi);
    }
  }
};

// exp(-n^2 / (2 sigma^2)) on |n| <= radius, normalised to sum 1: n = 0..radius.
std::vector<double> gaussian_taps(double sigma, int radius) {
  std::vector<double> taps(size_t(radius) + 1);
  double total = 0.0;
  for (int n = 0; n <= radius; ++n) {
    taps[size_t(n)] = std::exp(-double(n) * n / (2.0 * sigma * sigma));
    total += (n == 0 ? 1.0 : 2.0) * taps[size_t(n)];
  }
  for (double& t : taps) t /= total;
  return taps;
}

AxisWeights axis_weights(const FourierSettings& settings, int length) {
  AxisWeights axis;
  axis.length = length;
  axis.weights.assign(size_t(length) * size_t(length), 0.0);
  auto add = [&](int p, int q, double w) {
    axis.weights[size_t(p) * size_t(length) + size_t(std::clamp(q, 0, length - 1))] += w;
  };
  const double sigma = settings.sigma_s;
  if (sigma < 12.0) {
    // The exact filter's window, radius ceil(4 sigma): its taps up to 8,
    // beyond that the recursion that stands for it.
    const int window_radius = int(std::ceil(4.0 * sigma));
    const std::vector<double> window =
        window_radius <= 8 ? gaussian_taps(sigma, window_radius) : fourier_recursive_window(sigma);
    const int radius = int(window.size()) - 1;
    for (int p = 0; p < length; ++p)
      for (int d = -radius; d <= radius; ++d) add(p, p + d, window[size_t(std::abs(d))]);
    axis.find_ranges();
    return axis;
  }
  // From sigma-s 12: cells of s = floor(sigma / 4) pixels (at most 25),
  // blurred on their grid by the Gaussian whose variance plus the cell's,
  // (s^2 - 1) / 12, is sigma^2, on |n| <= ceil(4 sigma_c) (at most 20),
  // interpolated back bilinearly from the cells' centres (c + 1/2) s - 1/2.
  const int s = std::min(int(std::floor(sigma / 4.0)), 25);
  const double cell_sigma = std::sqrt(sigma * sigma - (double(s) * s - 1.0) / 12.0) / s;
  const int radius = std::min(int(std::ceil(4.0 * cell_sigma)), 20);
  const std::vector<double> coarse_taps = gaussian_taps(cell_sigma, radius);
  for (int p = 0; p < length; ++p) {
    const double position = (p + 0.5) / s - 0.5;
    const int left = int(std::floor(position));
    const double t = position - left;
    for (int c = left; c <= left + 1; ++c)
      for (int cell = c - radius; cell <= c + radius; ++cell)
        for (int q = cell * s; q < cell * s + s; ++q)
          add(p, q, (c == left ? 1.0 - t : t) * coarse_taps[size_t(std::abs(c - cell))] / s);
  }
  axis.find_ranges();
  return axis;
}

double kernel_value(Kernel kernel, double x, double sigma_r) { return range_weight(kernel, x, sigma_r); }

// 0 at t <= 0, 1 at t >= 1, every derivative 0 at both ends (the
// continuation's documented step: e^(-1/t) / (e^(-1/t) + e^(-1/(1-t)))).
double smooth_step(double t) {
  if (t <= 0.0) return 0.0;
  if (t >= 1.0) return 1.0;
  const double a = std::exp(-1.0 / t), b = std::exp(-1.0 / (1.0 - t));
  return a / (a + b);
}

// Composite Simpson over [from, to] in `panels` (even) panels of f(x).
template <class F>
double simpson(F f, double from, double to, int panels) {
  const double h = (to - from) / panels;
  double sum = f(from) + f(to);
  for (int i = 1; i < panels; ++i) sum += (i % 2 ? 4.0 : 2.0) * f(from + i * h);
  return sum * h / 3.0;
}

}  // namespace

std::vector<double> fourier_recursive_window(double sigma_s) {
  // The documented fit of Re(c1 e^{p1 x}) + Re(c2 e^{p2 x}) to exp(-x^2 / 2)
  // (core/filters/fourier_design.cpp states how it was made).
  const double decay[2] = {1.7845253905, 1.7242177766}, frequency[2] = {0.6319047675, 1.9972190616};
  const int r = int(std::ceil(4.0 * sigma_s));
  const std::vector<double> taps = gaussian_taps(sigma_s, r);
  std::complex<double> pole[2];
  for (int i = 0; i < 2; ++i) pole[i] = std::exp(std::complex<double>(-decay[i], frequency[i]) / sigma_s);
  // Weighted rows sqrt(w_n) [Re z1^n, -Im z1^n, Re z2^n, -Im z2^n] = sqrt(w_n) taps[n].
  const int rows = r + 1;
  std::vector<std::array<double, 4>> a(static_cast<size_t>(rows));
  std::vector<double> b(static_cast<size_t>(rows));
  for (int n = 0; n <= r; ++n) {
    const double w = std::sqrt(n == 0 ? 1.0 : 2.0);
    for (int i = 0; i < 2; ++i) {
      const std::complex<double> power = std::pow(pole[i], n);
      a[size_t(n)][size_t(2 * i)] = w * power.real();
      a[size_t(n)][size_t(2 * i + 1)] = -w * power.imag();
    }
    b[size_t(n)] = w * taps[size_t(n)];
  }
  // Modified Gram-Schmidt: a = Q R, then R x = Q^T b.
  double upper[4][4] = {};
  for (int j = 0; j < 4; ++j) {
    for (int i = 0; i < j; ++i) {
      double dot = 0.0;
      for (int n = 0; n < rows; ++n) dot += a[size_t(n)][size_t(i)] * a[size_t(n)][size_t(j)];
      upper[i][j] = dot;
      for (int n = 0; n < rows; ++n) a[size_t(n)][size_t(j)] -= dot * a[size_t(n)][size_t(i)];
    }
    double norm = 0.0;
    for (int n = 0; n < rows; ++n) norm += a[size_t(n)][size_t(j)] * a[size_t(n)][size_t(j)];
    upper[j][j] = std::sqrt(norm);
    for (int n = 0; n < rows; ++n) a[size_t(n)][size_t(j)] /= upper[j][j];
  }
  double x[4];
  for (int j = 3; j >= 0; --j) {
    double value = 0.0;
    for (int n = 0; n < rows; ++n) value += a[size_t(n)][size_t(j)] * b[size_t(n)];
    for (int i = j + 1; i < 4; ++i) value -= upper[j][i] * x[i];
    x[j] = value / upper[j][j];
  }
  std::vector<double> window(size_t(r) + 1);
  double total = 0.0;
  for (int n = 0; n <= r; ++n) {
    double h = 0.0;
    for (int i = 0; i < 2; ++i) {
      const std::complex<double> power = std::pow(pole[i], n);
      h += x[2 * i] * power.real() - x[2 * i + 1] * power.imag();
    }
    window[size_t(n)] = h;
    total += (n == 0 ? 1.0 : 2.0) * h;
  }
  for (double& h : window) h /= total;
  return window;
}

FourierChannelSeries fourier_series_reference(Kernel kernel, double sigma_r, double low, double high, double period,
                                              int terms) {
  // Sweeps repeat a few designs many times: each is integrated once.
  using Key = std::tuple<int, double, double, double, double, int>;
  static std::map<Key, FourierChannelSeries> done;
  static std::mutex guard;
  const Key key{int(kernel), sigma_r, low, high, period, terms};
  {
    const std::lock_guard<std::mutex> lock(guard);
    const auto found = done.find(key);
    if (found != done.end()) return found->second;
  }
  FourierChannelSeries series;
  series.low = low;
  series.high = high;
  series.period = period;
  const double length = high - low, half = 0.5 * period, omega = 2.0 * kPi / period;
  // f (even, R) and g (odd, x R) on x >= 0, and the points where they bend.
  std::function<double(double)> even, odd;
  std::vector<double> breaks;
  if (kernel == Kernel::gaussian) {
    // The periodised Gaussian: its coefficients are the whole line's
    // integrals; beyond 40 sigma_r nothing is left in double.
    even = [=](double x) { return kernel_value(kernel, x, sigma_r); };
    odd = [=](double x) { return x * kernel_value(kernel, x, sigma_r); };
    breaks = {0.0, 40.0 * sigma_r};
  } else {
    const double margin = half - length, at_end = kernel_value(kernel, length, sigma_r);
    even = [=](double x) {
      const double r = kernel_value(kernel, x, sigma_r);
      return x <= length ? r : at_end + (r - at_end) * (1.0 - smooth_step((x - length) / margin));
    };
    odd = [=](double x) {
      const double r = x * kernel_value(kernel, x, sigma_r);
      return x <= length ? r : r * (1.0 - smooth_step((x - length) / margin));
    };
    breaks = {0.0, length, half};
    if (sigma_r < length) breaks.push_back(sigma_r);
    std::sort(breaks.begin(), breaks.end());
  }
  for (int k = 0; k <= terms; ++k) {
    double a = 0.0, b = 0.0;
    for (size_t i = 0; i + 1 < breaks.size(); ++i) {
      const double from = breaks[i], to = breaks[i + 1];
      // About 64 panels per period of the highest harmonic, at least 4000.
      const int panels = 2 * std::max(2000, int(std::ceil(32.0 * (to - from) * (terms + 1) / period)));
      a += simpson([&](double x) { return even(x) * std::cos(omega * k * x); }, from, to, panels);
      b += simpson([&](double x) { return odd(x) * std::sin(omega * k * x); }, from, to, panels);
    }
    // Even f: a_0 = (2/T) int_0 f, a_k = (4/T) int_0 f cos; odd g: b_k = (4/T) int_0 g sin.
    series.cosine.push_back((k == 0 ? 2.0 : 4.0) / period * a);
    series.sine.push_back(k == 0 ? 0.0 : 4.0 / period * b);
  }
  const std::lock_guard<std::mutex> lock(guard);
  done.emplace(key, series);
  return series;
}

std::vector<double> fourier_axis_window(const FourierSettings& settings, int length) {
  return axis_weights(settings, length).weights;
}

ReferenceImage fourier_reference(const ReferenceImage& input, const FourierSettings& settings) {
  const int width = input.width, height = input.height, colors = input.channels >= 3 ? 3 : 1;
  const bool lab = settings.mode == Mode::lab && colors == 3;
  const std::vector<double> work = working(input, lab);
  const AxisWeights across = axis_weights(settings, width), down = axis_weights(settings, height);
  auto centred = [&](int x, int y, int c) {
    const FourierChannelSeries& s = settings.channels[size_t(c)];
    x = std::clamp(x, 0, width - 1);
    y = std::clamp(y, 0, height - 1);
    const double v = work[(size_t(y) * size_t(width) + size_t(x)) * size_t(colors) + size_t(c)];
    return std::clamp(v, s.low, s.high) - 0.5 * (s.low + s.high);
  };
  auto alpha = [&](int x, int y) {
    return has_alpha(input) ? input.at(std::clamp(x, 0, width - 1), std::clamp(y, 0, height - 1), input.channels - 1)
                            : 1.0;
  };
  ReferenceImage output = input;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double result[3];
      for (int c = 0; c < colors; ++c) {
        const FourierChannelSeries& s = settings.channels[size_t(c)];
        const double up = centred(x, y, c), omega = 2.0 * kPi / s.period;
        double D = 0.0, E = 0.0, A = 0.0;
        for (int qy = down.first[size_t(y)]; qy <= down.last[size_t(y)]; ++qy)
          for (int qx = across.first[size_t(x)]; qx <= across.last[size_t(x)]; ++qx) {
            const double w = across.at(x, qx) * down.at(y, qy) * alpha(qx, qy);
            if (w == 0.0) continue;
            const double difference = centred(qx, qy, c) - up;
            double even = 0.0, odd = 0.0;
            for (size_t k = 0; k < s.cosine.size(); ++k) {
              even += s.cosine[k] * std::cos(omega * double(k) * difference);
              odd += s.sine[k] * std::sin(omega * double(k) * difference);
            }
            D += w * even;
            E += w * odd;
            A += w;
          }
        const double half = 0.5 * (s.high - s.low);
        const double least = std::max(settings.min_denominator * A, settings.denominator_floor);
        result[c] = std::clamp(up + E / std::max(D, least), -half, half) + 0.5 * (s.low + s.high);
      }
      store(output, x, y, result, lab);
    }
  return output;
}

ReferenceImage lab_channels_bilateral_reference(const ReferenceImage& input, const BilateralSettings& settings) {
  const int width = input.width, height = input.height;
  const bool lab = input.channels >= 3;
  const int colors = lab ? 3 : 1;
  const std::vector<double> work = working(input, lab);
  const int r = reference_radius(settings);
  ReferenceImage output = input;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double result[3];
      for (int c = 0; c < colors; ++c) {
        const double centre = work[(size_t(y) * size_t(width) + size_t(x)) * size_t(colors) + size_t(c)];
        double sum = 0.0, weight_sum = 0.0;
        for (int dy = -r; dy <= r; ++dy)
          for (int dx = -r; dx <= r; ++dx) {
            const int qx = std::clamp(x + dx, 0, width - 1), qy = std::clamp(y + dy, 0, height - 1);
            const double value = work[(size_t(qy) * size_t(width) + size_t(qx)) * size_t(colors) + size_t(c)];
            const double w = std::exp(-double(dx * dx + dy * dy) / (2.0 * settings.sigma_s * settings.sigma_s)) *
                             range_weight(settings.kernel, value - centre, settings.sigma_r) *
                             (has_alpha(input) ? input.at(qx, qy, input.channels - 1) : 1.0);
            sum += w * value;
            weight_sum += w;
          }
        result[c] = weight_sum > 0.0 ? sum / weight_sum : centre;
      }
      store(output, x, y, result, lab);
    }
  return output;
}

}  // namespace edgewise_reference
