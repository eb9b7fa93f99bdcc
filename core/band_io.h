// Host-side moves between the executor's rows and a backend's planar bands:
// raw interleaved samples (8/16-bit or float, as stored) into a padded band
// with clamp-to-edge copies, planar output back into raw rows, and the
// re-padding a multi-pass kernel needs between passes. The conversions are
// core's (sample_convert.h), which the CUDA pack/unpack kernels use too.
#pragma once

#include <functional>

#include "band.h"

namespace edgewise {

struct SampleRows;  // sample_rows.h

// Runs body(begin, end) over [0, count) split into pieces, possibly on several
// threads; the CPU backend supplies OpenMP, the default is one call.
using ParallelRows = std::function<void(int count, const std::function<void(int begin, int end)>& body)>;

// Fills every row of `band` from `rows` (which holds the image rows the band
// covers, clipped to the image), clamping rows and columns to the image.
// `samples`: the row conversions to use (sample_rows.h; the CPU backend's
// are built for its instruction set), null for core's baseline build.
void unpack_rows(const RowSpan& rows, int image_height, PaddedBand& band, const ParallelRows& parallel = {},
                 const SampleRows* samples = nullptr);

// Writes `band`'s rows into `rows` (the same image rows), rounding and
// clamping to the span's sample type.
void pack_rows(const OutputBand& band, const RowSpan& rows, const ParallelRows& parallel = {},
               const SampleRows* samples = nullptr);

// Band rows [first, first + count) of `band` hold computed values: fills
// their padding columns, and band rows before first and from first + count
// on with copies of the nearest computed row (clamp-to-edge at the image's
// top and bottom).
void repad(PaddedBand& band, int first, int count, const ParallelRows& parallel = {});

}  // namespace edgewise
