// The row conversions of color_rows.h on EW_LANE_WIDTH lanes, included by
// one translation unit per instruction set (color_rows_*.cpp define
// EW_ISA_NAMESPACE and EW_LANE_WIDTH first).
#include <cstring>

#include "color_lab.h"
#include "color_rows.h"

namespace edgewise::cpu::EW_ISA_NAMESPACE {

namespace {

using Lanes = float_lanes<EW_LANE_WIDTH>;
constexpr size_t kLanes = EW_LANE_WIDTH;

// Calls convert(the planes' lanes) for pixels [0, n) of Count planes.
template <int Count, class Convert>
void for_lanes(float* const (&planes)[Count], size_t n, Convert convert) {
  size_t x = 0;
  for (; x + kLanes <= n; x += kLanes) {
    Lanes v[Count];
    for (int p = 0; p < Count; ++p) std::memcpy(&v[p], planes[p] + x, sizeof(Lanes));
    convert(v);
    for (int p = 0; p < Count; ++p) std::memcpy(planes[p] + x, &v[p], sizeof(Lanes));
  }
  if (x == n) return;
  const size_t rest = n - x;
  Lanes v[Count];
  for (int p = 0; p < Count; ++p) {
    v[p] = Lanes{} + planes[p][x];  // the padding lanes repeat a real sample
    std::memcpy(&v[p], planes[p] + x, rest * sizeof(float));
  }
  convert(v);
  for (int p = 0; p < Count; ++p) std::memcpy(planes[p] + x, &v[p], rest * sizeof(float));
}

void to_lab(float* r, float* g, float* b, size_t n) {
  float* const planes[3] = {r, g, b};
  for_lanes<3>(planes, n, [](Lanes(&v)[3]) { rgb_to_lab(v[0], v[1], v[2], v[0], v[1], v[2]); });
}

void from_lab(float* L, float* a, float* b, size_t n) {
  float* const planes[3] = {L, a, b};
  for_lanes<3>(planes, n, [](Lanes(&v)[3]) { lab_to_rgb(v[0], v[1], v[2], v[0], v[1], v[2]); });
}

void to_linear(float* samples, size_t n) {
  float* const planes[1] = {samples};
  for_lanes<1>(planes, n, [](Lanes(&v)[1]) { v[0] = srgb_to_linear(v[0]); });
}

void from_linear(float* samples, size_t n) {
  float* const planes[1] = {samples};
  for_lanes<1>(planes, n, [](Lanes(&v)[1]) { v[0] = linear_to_srgb(v[0]); });
}

}  // namespace

ColorRows color_rows() { return {to_lab, from_lab, to_linear, from_linear}; }

}  // namespace edgewise::cpu::EW_ISA_NAMESPACE
