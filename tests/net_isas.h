// The CPU forward passes' instruction sets this machine runs, each once
// (a set it lacks runs as the widest it has): what the networks' tests loop over.
#pragma once

#include <cstring>
#include <vector>

#include "noise_net.h"

namespace edgewise_test {

inline std::vector<edgewise::NoiseNetIsa> runnable_isas() {
  using edgewise::NoiseNetIsa;
  std::vector<NoiseNetIsa> isas;
  for (NoiseNetIsa isa : {NoiseNetIsa::generic, NoiseNetIsa::avx2, NoiseNetIsa::avx512}) {
    bool seen = false;
    for (NoiseNetIsa other : isas)
      seen = seen || std::strcmp(edgewise::noise_net_isa_name(other), edgewise::noise_net_isa_name(isa)) == 0;
    if (!seen) isas.push_back(isa);
  }
  return isas;
}

}  // namespace edgewise_test
