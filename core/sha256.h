// SHA-256 (FIPS 180-4), for the checksum of Edgewise's network files
// (noise_net.h): one call over a buffer, no streaming, no dependency.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace edgewise {

using Sha256Digest = std::array<uint8_t, 32>;

Sha256Digest sha256(const void* data, size_t size);

// Lower-case hexadecimal, two digits a byte (64 characters for a digest).
std::string hex_string(const uint8_t* bytes, size_t size);
inline std::string sha256_hex(const Sha256Digest& digest) { return hex_string(digest.data(), digest.size()); }

}  // namespace edgewise
