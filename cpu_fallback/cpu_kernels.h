// The CPU backend's band kernels, one per filter family (Plan::family): a
// filter's stem adds its kernel here (cpu_kernels.cpp) and nowhere else in
// this backend.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "band.h"
#include "band_io.h"
#include "plan.h"

namespace edgewise::cpu {

// One family's computation of a band on the CPU. It may overwrite the input
// band, and must write every sample of the output and of each extra output.
class BandKernel {
 public:
  virtual ~BandKernel() = default;
  virtual void run(PaddedBand& input, const OutputBand& output, const std::vector<OutputBand>& extras) = 0;
};

struct KernelContext {
  int band_rows = 0;  // the most output rows a band has
  int threads = 1;
  ParallelRows parallel;  // OpenMP over rows, `threads` wide
};

struct KernelEntry {
  const char* family;
  // Floats of its own buffers per band (beyond the plan's), for the budget.
  BandCost (*own_cost)(const Plan& plan);
  std::unique_ptr<BandKernel> (*make)(const Plan& plan, const KernelContext& context);
};

// The families this backend runs; null when it has none for `family`.
const KernelEntry* find_kernel(const std::string& family);

// The widest instruction set this processor runs ("avx512", "avx2", "generic").
const char* instruction_set();

}  // namespace edgewise::cpu
