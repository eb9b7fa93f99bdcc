// Integer and float samples <-> the engine's 0..1 floats. Shared by the CPU
// row adapters and the CUDA pack/unpack kernels so both quantise alike.
#pragma once

#include <cstdint>

#include "hostdevice.h"

namespace edgewise {

enum class SampleType { u8 = 0, u16 = 1, f32 = 2 };

EW_HD float sample_to_float(uint8_t v) { return float(v) / 255.0f; }
EW_HD float sample_to_float(uint16_t v) { return float(v) / 65535.0f; }
EW_HD float sample_to_float(float v) { return v; }

// Rounds to nearest; out-of-range and NaN values clamp (NaN to 0).
EW_HD uint8_t float_to_u8(float v) {
  v = v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f;
  return static_cast<uint8_t>(v * 255.0f + 0.5f);
}

EW_HD uint16_t float_to_u16(float v) {
  v = v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f;
  return static_cast<uint16_t>(v * 65535.0f + 0.5f);
}

constexpr int sample_bytes(SampleType type) { return type == SampleType::u8 ? 1 : type == SampleType::u16 ? 2 : 4; }

}  // namespace edgewise
