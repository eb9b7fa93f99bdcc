// Camera noise from clean photos: a photo is "unprocessed" into the raw
// mosaic a camera would have recorded, sensor noise is added there, and it
// is developed again as a camera develops a JPEG. The noise a photographer
// sees then has what real camera noise has and white noise lacks: it grows
// with the signal, demosaicing correlates it over two or three pixels, the
// colour matrix mixes it across channels (much of it becomes colour noise),
// the tone curve bends its level with brightness, and JPEG's 4:2:0 chroma
// subsampling and quantisation take its finest frequencies.
//
// Method: Brooks, Mildenhall, Xue, Chen, Sharlet & Barron, "Unprocessing
// images for learned raw denoising" (CVPR 2019): inverse smoothstep tone
// curve, inverse sRGB curve, inverse colour correction (a camera's
// XYZ-to-camera matrix times sRGB-to-XYZ, rows normalised to one), inverse
// white balance, RGGB mosaic; heteroscedastic Gaussian noise of variance
// shot * x + read on the linear raw value x, with their relation between
// the two, log(read) = 2.18 log(shot) + 1.20; then white balance,
// demosaicing, colour correction, the sRGB curve and the tone curve. The
// camera matrices are dcraw's adobe_coeff entries (Adobe's DNG converter's
// ColorMatrix2, D65). Grey photos take a monochrome sensor: no mosaic, no
// matrix, the same curves and noise.
//
// The reference is the same development without noise (so the
// demosaicer's own artefacts are not counted as noise) and without JPEG.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace edgewise_quality {

enum class Demosaic { bilinear, malvar, hamilton_adams };
const char* demosaic_name(Demosaic demosaic);

struct CameraSettings {
  int camera = 0;  // index into camera_names()
  double red_gain = 2.1, blue_gain = 1.7;  // the white balance (Brooks: red 1.9-2.4, blue 1.5-1.9)
  Demosaic demosaic = Demosaic::malvar;
  double shot = 0.003;  // noise variance per unit of linear raw signal (full scale 1)
  double read = 0;      // noise variance at no signal
  int jpeg_quality = 0;  // 0: no JPEG; else baseline 4:2:0 at this quality
  unsigned seed = 1;
};

const std::vector<std::string>& camera_names();

// An 8-bit photo (grey or RGB, interleaved) and its developments.
struct Photo8 {
  int width = 0, height = 0, channels = 0;
  std::vector<uint8_t> pixels;
};

struct Development {
  Photo8 clean;  // developed without noise: the reference
  Photo8 noisy;  // developed with sensor noise (and JPEG when asked)
};

// Brooks et al.'s read noise for a shot noise level (their fitted line,
// without its random spread).
double read_for_shot(double shot);

// The benchmark's four sensor-noise levels (shot noise 1.5e-3 to 1.2e-2:
// the upper part of Brooks et al.'s range, 1e-4 to 1.2e-2, where noise
// shows in an 8-bit JPEG), 0 the weakest.
constexpr int kCameraLevels = 4;
double camera_level_shot(int level);

// The settings of one benchmark case: the level's noise, and a camera,
// white balance, demosaicer and JPEG quality (0, 85, 90 or 95) chosen by
// `variant` so that a set of photos sees several of each. Deterministic.
CameraSettings camera_case(int level, int variant, bool jpeg);

Development develop(const Photo8& photo, const CameraSettings& settings);

// One line naming the settings: "5D Mark II, malvar, wb 2.10/1.70, shot 3.0e-03, jpeg 90".
std::string describe(const CameraSettings& settings);

// Root-mean-square of noisy - clean per channel, code values.
std::vector<double> noise_rms(const Development& development);

}  // namespace edgewise_quality
