// libFuzzer target: any bytes, as a TIFF file, through edgewise_cli::read_tiff.
#include "fuzz_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return edgewise_fuzz::read_one(data, size, [](const std::string& path, const edgewise_cli::ReadLimits& limits) {
    return edgewise_cli::read_tiff(path, limits);
  });
}
