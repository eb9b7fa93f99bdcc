// Rows of stored samples (interleaved 8/16-bit or float, 1 to 4 channels)
// to planar floats and back, with sample_convert.h's conversions. The
// channel count and sample type are template arguments so that compilers
// turn the interleaved accesses into vector shuffles: with a run-time count
// the loops ran scalar, 1.6 cycles a sample (4 MP RGB float on 2 Zen 4
// cores: unpacking 2.5 ms, packing 2.3). core's band_io.cpp instantiates
// them for the baseline; the CPU backend once per instruction set
// (cpu_fallback/sample_rows_*.cpp), in an inline namespace each (as
// color_lab.h explains), and hands band_io its table (SampleRows).
#pragma once

#include <cstddef>

#include "sample_convert.h"

#if defined(EW_ISA_NAMESPACE)
#define EW_SAMPLE_ROWS_PASTE(a, b) a##b
#define EW_SAMPLE_ROWS_NAME(isa) EW_SAMPLE_ROWS_PASTE(sample_rows_, isa)
#define EW_SAMPLE_ROWS EW_SAMPLE_ROWS_NAME(EW_ISA_NAMESPACE)
#else
#define EW_SAMPLE_ROWS sample_rows_shared
#endif

namespace edgewise {

// Row conversions between stored and planar samples (see unpack_samples).
struct SampleRows {
  void (*unpack)(const unsigned char* raw, SampleType type, int channels, int width, float* const* planes);
  void (*pack)(const float* const* planes, int channels, int width, SampleType type, unsigned char* raw);
};

inline namespace EW_SAMPLE_ROWS {

template <int Channels, class Sample>
void unpack_interleaved(const unsigned char* raw, int width, float* const* planes) {
  const Sample* src = reinterpret_cast<const Sample*>(raw);
  for (int x = 0; x < width; ++x)
    for (int c = 0; c < Channels; ++c) planes[c][x] = sample_to_float(src[size_t(x) * Channels + size_t(c)]);
}

template <int Channels, class Sample>
void pack_interleaved(const float* const* planes, int width, unsigned char* raw) {
  Sample* dst = reinterpret_cast<Sample*>(raw);
  for (int x = 0; x < width; ++x)
    for (int c = 0; c < Channels; ++c) {
      const float v = planes[c][x];
      if constexpr (sizeof(Sample) == 1)
        dst[size_t(x) * Channels + size_t(c)] = float_to_u8(v);
      else if constexpr (sizeof(Sample) == 2)
        dst[size_t(x) * Channels + size_t(c)] = float_to_u16(v);
      else
        dst[size_t(x) * Channels + size_t(c)] = v;
    }
}

template <int Channels>
void unpack_channels(const unsigned char* raw, SampleType type, int width, float* const* planes) {
  switch (type) {
    case SampleType::u8:
      return unpack_interleaved<Channels, uint8_t>(raw, width, planes);
    case SampleType::u16:
      return unpack_interleaved<Channels, uint16_t>(raw, width, planes);
    case SampleType::f32:
      return unpack_interleaved<Channels, float>(raw, width, planes);
  }
}

template <int Channels>
void pack_channels(const float* const* planes, int width, SampleType type, unsigned char* raw) {
  switch (type) {
    case SampleType::u8:
      return pack_interleaved<Channels, uint8_t>(planes, width, raw);
    case SampleType::u16:
      return pack_interleaved<Channels, uint16_t>(planes, width, raw);
    case SampleType::f32:
      return pack_interleaved<Channels, float>(planes, width, raw);
  }
}

// `width` pixels of `channels` interleaved samples of `type` at raw into
// planes[0..channels), and back.
inline void unpack_samples(const unsigned char* raw, SampleType type, int channels, int width, float* const* planes) {
  switch (channels) {
    case 1:
      return unpack_channels<1>(raw, type, width, planes);
    case 2:
      return unpack_channels<2>(raw, type, width, planes);
    case 3:
      return unpack_channels<3>(raw, type, width, planes);
    default:
      return unpack_channels<4>(raw, type, width, planes);
  }
}

inline void pack_samples(const float* const* planes, int channels, int width, SampleType type, unsigned char* raw) {
  switch (channels) {
    case 1:
      return pack_channels<1>(planes, width, type, raw);
    case 2:
      return pack_channels<2>(planes, width, type, raw);
    case 3:
      return pack_channels<3>(planes, width, type, raw);
    default:
      return pack_channels<4>(planes, width, type, raw);
  }
}

}  // namespace EW_SAMPLE_ROWS
}  // namespace edgewise
