#include "denoise_net_reference.h"

#include <algorithm>
#include <stdexcept>

namespace edgewise_reference {

namespace {

struct Planes {
  int channels = 0, height = 0, width = 0;
  std::vector<double> v;  // [channel][y][x]
  double& at(int c, int y, int x) { return v[(size_t(c) * height + y) * width + x]; }
  double at(int c, int y, int x) const { return v[(size_t(c) * height + y) * width + x]; }
};

Planes make(int channels, int height, int width) {
  Planes p;
  p.channels = channels;
  p.height = height;
  p.width = width;
  p.v.assign(size_t(channels) * height * width, 0.0);
  return p;
}

Planes convolve(const Planes& in, const ConvLayer& layer) {
  if (layer.in != in.channels || layer.stride != 1) throw std::invalid_argument("reference: a conv's shape");
  const int k = layer.kernel, pad = k / 2;
  Planes out = make(layer.out, in.height, in.width);
  for (int o = 0; o < layer.out; ++o)
    for (int y = 0; y < in.height; ++y)
      for (int x = 0; x < in.width; ++x) {
        double sum = layer.bias[size_t(o)];
        for (int i = 0; i < layer.in; ++i)
          for (int ky = 0; ky < k; ++ky)
            for (int kx = 0; kx < k; ++kx) {
              const int iy = y + ky - pad, ix = x + kx - pad;
              if (iy < 0 || iy >= in.height || ix < 0 || ix >= in.width) continue;
              sum += layer.weights[((size_t(o) * layer.in + i) * k + ky) * k + kx] * in.at(i, iy, ix);
            }
        out.at(o, y, x) = layer.relu ? std::max(sum, 0.0) : sum;
      }
  return out;
}

}  // namespace

std::vector<double> denoise_net_reference(const std::vector<NetStep>& steps, const std::vector<double>& rgb,
                                          const std::vector<double>& map, int width, int height) {
  Planes x = make(3, height, width);
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < height; ++y)
      for (int i = 0; i < width; ++i) x.at(c, y, i) = rgb[(size_t(y) * width + i) * 3 + c] - 0.5;
  std::vector<Planes> saved;
  for (const NetStep& step : steps) {
    const int f = step.factor;
    switch (step.kind) {
      case NetStep::conv:
        x = convolve(x, step.layer);
        break;
      case NetStep::unshuffle: {  // out[c f^2 + dy f + dx][y][x] = in[c][y f + dy][x f + dx]
        Planes next = make(x.channels * f * f, x.height / f, x.width / f);
        for (int c = 0; c < x.channels; ++c)
          for (int dy = 0; dy < f; ++dy)
            for (int dx = 0; dx < f; ++dx)
              for (int y = 0; y < next.height; ++y)
                for (int i = 0; i < next.width; ++i) next.at((c * f + dy) * f + dx, y, i) = x.at(c, y * f + dy, i * f + dx);
        x = next;
        break;
      }
      case NetStep::shuffle: {
        Planes next = make(x.channels / (f * f), x.height * f, x.width * f);
        for (int c = 0; c < next.channels; ++c)
          for (int dy = 0; dy < f; ++dy)
            for (int dx = 0; dx < f; ++dx)
              for (int y = 0; y < x.height; ++y)
                for (int i = 0; i < x.width; ++i) next.at(c, y * f + dy, i * f + dx) = x.at((c * f + dy) * f + dx, y, i);
        x = next;
        break;
      }
      case NetStep::map: {
        Planes next = make(x.channels + f, x.height, x.width);
        std::copy(x.v.begin(), x.v.end(), next.v.begin());
        for (int c = 0; c < f; ++c)
          for (int y = 0; y < x.height; ++y)
            for (int i = 0; i < x.width; ++i)
              next.at(x.channels + c, y, i) = map[(size_t(y) * x.width + i) * f + c];
        x = next;
        break;
      }
      case NetStep::save:
        saved.push_back(x);
        break;
      case NetStep::add:
        for (size_t j = 0; j < x.v.size(); ++j) x.v[j] += saved.back().v[j];
        saved.pop_back();
        break;
      case NetStep::residual:
        for (int c = 0; c < 3; ++c)
          for (int y = 0; y < height; ++y)
            for (int i = 0; i < width; ++i) x.at(c, y, i) += rgb[(size_t(y) * width + i) * 3 + c];
        break;
    }
  }
  std::vector<double> out(size_t(width) * height * 3);
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < height; ++y)
      for (int i = 0; i < width; ++i) out[(size_t(y) * width + i) * 3 + c] = x.at(c, y, i);
  return out;
}

}  // namespace edgewise_reference
