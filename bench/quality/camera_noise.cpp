// The camera-noise benchmark's image maker (camera_pipeline.h): a clean
// photo in, its noisy developments out, one per sensor-noise level, with
// and without JPEG, as PNG (STEM_levelN[_jpeg].png), each beside its own
// noise-free development (STEM_levelN[_jpeg]_clean.png: the reference its
// PSNR is taken against), with the settings and the true noise per channel
// printed (tab-separated).
//
// Usage: camera_noise OUTDIR IMAGE...   [EDGEWISE_CAMERA_VARIANT=N picks the
// camera, white balance and demosaicer variant; default: the image's index]
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>

#include "camera_pipeline.h"

namespace {

using namespace edgewise_quality;

Photo8 read_photo(const std::string& path) {
  cv::Mat image = cv::imread(path, cv::IMREAD_UNCHANGED);
  if (image.empty()) throw std::runtime_error(path + ": cannot read");
  if (image.depth() != CV_8U) throw std::runtime_error(path + ": not 8-bit");
  if (image.channels() == 4) cv::cvtColor(image, image, cv::COLOR_BGRA2BGR);
  if (image.channels() == 3) cv::cvtColor(image, image, cv::COLOR_BGR2RGB);
  Photo8 photo{image.cols, image.rows, image.channels(), {}};
  photo.pixels.assign(image.data, image.data + image.total() * image.elemSize());
  return photo;
}

void write_photo(const std::string& path, const Photo8& photo) {
  cv::Mat image(photo.height, photo.width, CV_8UC(photo.channels), const_cast<uint8_t*>(photo.pixels.data()));
  cv::Mat out;
  if (photo.channels == 3)
    cv::cvtColor(image, out, cv::COLOR_RGB2BGR);
  else
    out = image;
  if (!cv::imwrite(path, out)) throw std::runtime_error(path + ": cannot write");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: camera_noise OUTDIR IMAGE...\n");
    return 2;
  }
  try {
    const std::string dir = argv[1];
    std::filesystem::create_directories(dir);
    std::printf("image\tlevel\tjpeg\tsettings\tnoise rms per channel\n");
    for (int i = 2; i < argc; ++i) {
      const Photo8 photo = read_photo(argv[i]);
      const std::string stem = std::filesystem::path(argv[i]).stem().string();
      const char* forced = std::getenv("EDGEWISE_CAMERA_VARIANT");
      const int variant = forced ? std::atoi(forced) : i - 2;
      for (int level = 0; level < kCameraLevels; ++level)
        for (bool jpeg : {false, true}) {
          const CameraSettings settings = camera_case(level, variant, jpeg);
          const Development d = develop(photo, settings);
          // Each case's own noise-free development is its reference: the camera,
          // white balance and demosaicer change with the level, so level 0's
          // (STEM_clean.png, kept for older commands) is not level 1's.
          if (level == 0 && !jpeg) write_photo(dir + "/" + stem + "_clean.png", d.clean);
          const std::string name = stem + "_level" + std::to_string(level) + (jpeg ? "_jpeg" : "");
          write_photo(dir + "/" + name + ".png", d.noisy);
          write_photo(dir + "/" + name + "_clean.png", d.clean);
          std::printf("%s\t%d\t%s\t%s\t", stem.c_str(), level, jpeg ? "yes" : "no", describe(settings).c_str());
          for (double rms : noise_rms(d)) std::printf(" %.2f", rms);
          std::printf("\n");
        }
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "camera_noise: %s\n", error.what());
    return 1;
  }
  return 0;
}
