// The pyramid benches' filters (CPU and GPU, issue 15's speed goals): radius
// 2 per level (sigma-s 1), sigma-r 20 (10 Delta E in lab), and the
// single-scale bilateral filter they are measured against.
#pragma once

#include "bilateral.h"
#include "pyramid.h"

namespace edgewise_bench {

inline float bench_sigma_r(edgewise::ColorMode mode) { return mode == edgewise::ColorMode::lab ? 10.0f : 20.0f; }

inline edgewise::FilterSpec pyramid(edgewise::ColorMode mode, int levels,
                                    edgewise::PyramidGuide guide = edgewise::PyramidGuide::gaussian,
                                    float chroma_strength = 1.0f) {
  edgewise::PyramidParameters p;
  p.mode = mode;
  p.levels = levels;
  p.sigma_s = 1.0f;
  p.radius = 2;
  p.sigma_r = bench_sigma_r(mode);
  p.guide = guide;
  p.chroma_strength = chroma_strength;
  return edgewise::pyramid_spec(p);
}

inline edgewise::FilterSpec bilateral(edgewise::ColorMode mode) {
  edgewise::BilateralParameters b;
  b.mode = mode;
  b.sigma_s = 1.0f;
  b.radius = 2;
  b.sigma_r = bench_sigma_r(mode);
  return edgewise::bilateral_spec(b);
}

}  // namespace edgewise_bench
