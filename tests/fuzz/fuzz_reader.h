// One fuzzer input through one of the CLI's readers, by path, as the CLI
// reads a file. A damaged file must end in std::runtime_error (the CLI
// prints its message); anything else is a finding: a crash, a sanitizer
// report, a leak, another exception, or a decoded image whose fields
// disagree with its pixel memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "image_file.h"
#include "memory_file.h"

namespace edgewise_fuzz {

// 16 M pixels: a header declaring more is refused before any pixel memory,
// so no input may take more than 16 M x 4 channels x 4 bytes = 256 MiB,
// well inside libFuzzer's default 2 GiB RSS limit.
constexpr uint64_t kMaxPixels = uint64_t(16) << 20;

inline void check_decoded(const edgewise_cli::DecodedImage& image) {
  const bool valid_layout = image.width > 0 && image.height > 0 && image.channels >= 1 && image.channels <= 4 &&
                            (image.bits == 8 || image.bits == 16 || image.bits == 32) &&
                            uint64_t(image.width) * uint64_t(image.height) <= kMaxPixels &&
                            image.bytes.size() == image.row_bytes() * size_t(image.height);
  if (!valid_layout) {
    std::fprintf(stderr, "edgewise fuzz: decoded %dx%d, %d channels, %d bits, but %zu bytes of pixels\n", image.width,
                 image.height, image.channels, image.bits, image.bytes.size());
    std::abort();
  }
}

template <class Read>
int read_one(const uint8_t* data, size_t size, Read read) {
  static MemoryFile file;
  file.assign(data, size);
  edgewise_cli::ReadLimits limits;
  limits.max_pixels = kMaxPixels;
  try {
    check_decoded(read(file.path(), limits));
  } catch (const std::runtime_error&) {
    // The expected answer to a damaged or unsupported file.
  }
  return 0;
}

}  // namespace edgewise_fuzz
