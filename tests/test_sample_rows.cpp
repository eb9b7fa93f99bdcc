// The CPU backend's row conversions between stored and planar samples
// (cpu_fallback/sample_rows_*.cpp, core/sample_rows.h), on every instruction
// set this processor runs, against core's baseline build: the same bits for
// every sample type, channel count and awkward width, out-of-range and NaN
// floats included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cpu_sample_rows.h"
#include "sample_rows.h"
#include "test_support.h"

namespace edgewise_test {
namespace {

using edgewise::SampleRows;
using edgewise::SampleType;

struct Isa {
  std::string name;
  SampleRows rows;
};

std::vector<Isa> usable_isas() {
  std::vector<Isa> isas = {{"generic", edgewise::cpu::generic::sample_rows()}};
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) isas.push_back({"avx2", edgewise::cpu::avx2::sample_rows()});
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"))
    isas.push_back({"avx512", edgewise::cpu::avx512::sample_rows()});
  return isas;
}

// Random stored samples of `type`, `bytes` long.
std::vector<unsigned char> random_raw(std::mt19937_64& rng, size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  for (unsigned char& b : raw) b = static_cast<unsigned char>(rng());
  return raw;
}

// Planar floats to pack: mostly 0..1, some out of range, NaN and infinities.
float random_sample(std::mt19937_64& rng) {
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  switch (rng() % 16) {
    case 0:
      return std::numeric_limits<float>::quiet_NaN();
    case 1:
      return float(u * 4.0 - 2.0);
    case 2:
      return (rng() % 2 ? 1.0f : -1.0f) * std::numeric_limits<float>::infinity();
    case 3:
      return float(std::round(u * 255.0) / 255.0 + (rng() % 2 ? 0.5 : -0.5) / 255.0);  // halfway between codes
    default:
      return float(u);
  }
}

TEST(SampleRows, EveryInstructionSetMatchesTheBaselineBuild) {
  EW_SEEDED_RNG(rng);
  const SampleRows baseline = {edgewise::unpack_samples, edgewise::pack_samples};
  int compared = 0;
  for (const Isa& isa : usable_isas())
    for (SampleType type : {SampleType::u8, SampleType::u16, SampleType::f32})
      for (int channels = 1; channels <= 4; ++channels)
        for (int width : {1, 2, 3, 7, 16, 17, 33, 64, 101, 1000}) {
          SCOPED_TRACE(isa.name + ", " + std::to_string(channels) + " channels, width " + std::to_string(width) + ", " +
                       std::to_string(edgewise::sample_bytes(type)) + "-byte samples");
          const size_t samples = size_t(width) * size_t(channels);
          const size_t bytes = samples * size_t(edgewise::sample_bytes(type));
          std::vector<unsigned char> raw = random_raw(rng, bytes);
          if (type == SampleType::f32)  // finite floats, some out of 0..1
            for (size_t i = 0; i < samples; ++i) {
              const float v = random_sample(rng);
              std::memcpy(raw.data() + i * 4, &v, 4);
            }
          std::vector<float> expected(samples), got(samples);
          float* expected_planes[4];
          float* got_planes[4];
          for (int c = 0; c < channels; ++c) {
            expected_planes[c] = expected.data() + size_t(c) * size_t(width);
            got_planes[c] = got.data() + size_t(c) * size_t(width);
          }
          baseline.unpack(raw.data(), type, channels, width, expected_planes);
          isa.rows.unpack(raw.data(), type, channels, width, got_planes);
          ASSERT_EQ(std::memcmp(expected.data(), got.data(), samples * sizeof(float)), 0) << "unpacking";

          std::vector<float> planar(samples);
          for (float& v : planar) v = random_sample(rng);
          const float* planes[4];
          for (int c = 0; c < channels; ++c) planes[c] = planar.data() + size_t(c) * size_t(width);
          std::vector<unsigned char> packed_expected(bytes + 1, 0xA5), packed_got(bytes + 1, 0xA5);
          baseline.pack(planes, channels, width, type, packed_expected.data());
          isa.rows.pack(planes, channels, width, type, packed_got.data());
          ASSERT_EQ(packed_expected, packed_got) << "packing (the byte after the row must stay untouched)";
          ++compared;
        }
  std::cout << "[  INFO    ] " << compared << " cases compared bit for bit" << std::endl;
}

}  // namespace
}  // namespace edgewise_test
