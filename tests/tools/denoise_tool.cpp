// The Denoise front end outside GIMP, for the tests and the user guide's
// pictures, with the CLI's image I/O:
//   develop IN OUT LEVEL jpeg|raw VARIANT
//       IN developed with camera-like noise (bench/quality/camera_pipeline.h:
//       sensor noise of that level, 0-3, a demosaicer, a colour matrix, and
//       with `jpeg` the JPEG a camera or phone writes), as an 8-bit PNG
//   denoise IN OUT METHOD STRENGTH LUMINANCE COLOUR
//       what plug-in-edgewise-denoise does with these arguments (METHOD -1:
//       the recommended one): the method's defaults, its automatic values
//       following the whole image's noise scaled by the three, on the CPU;
//       prints the method and why
//   methods
//       every Denoise method: its number, a tab, its plain name
//   defaults DATA_DIR
//       every method at the Denoise defaults on the test photos with
//       camera-like noise (a phone JPEG and a raw export of the astronaut,
//       a raw export of the grey cameraman): each must change the photo
//       visibly and bring it closer to its noise-free development; prints a
//       line per case, exits 1 when one does not
//   guide DATA_DIR OUTDIR
//       the user guide's pictures (docs/guide/*.png, made by
//       docs/make-guide-images.sh): crops of the test photos with camera-like
//       noise, before and after, enlarged 2x; tests/docs checks that the
//       committed ones are what this makes
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "camera_pipeline.h"
#include "denoise.h"
#include "engine.h"
#include "image_file.h"

namespace {

using edgewise_cli::DecodedImage;
using edgewise_quality::Photo8;

Photo8 read_photo(const std::string& path) {
  const DecodedImage image = edgewise_cli::read_image(path);
  if (image.bits != 8 || (image.channels != 1 && image.channels != 3))
    throw std::runtime_error(path + ": expected an 8-bit grey or RGB image");
  Photo8 photo{image.width, image.height, image.channels, {}};
  photo.pixels.assign(image.bytes.begin(), image.bytes.end());
  return photo;
}

void write_photo(const std::string& path, const Photo8& photo) {
  DecodedImage image;
  image.width = photo.width;
  image.height = photo.height;
  image.channels = photo.channels;
  image.bits = 8;
  image.allocate();
  std::copy(photo.pixels.begin(), photo.pixels.end(), image.bytes.begin());
  edgewise_cli::write_png(path, image);
}

Photo8 develop(const Photo8& photo, int level, bool jpeg, int variant) {
  return edgewise_quality::develop(photo, edgewise_quality::camera_case(level, variant, jpeg)).noisy;
}

struct Denoised {
  Photo8 photo;
  std::string method, reason;
};

// As the plug-in runs it (plugin/main.cpp, run_denoise_procedure).
Denoised denoise(const Photo8& photo, const edgewise::DenoiseSettings& settings) {
  const edgewise::ImageShape shape{photo.width, photo.height, photo.channels};
  const edgewise::ImageBuffer in{const_cast<uint8_t*>(photo.pixels.data()), shape, edgewise::SampleType::u8, 0};
  const edgewise::NoiseEstimate measured = edgewise::estimate_noise(in);
  const edgewise::DenoiseJob job = edgewise::plan_denoise(settings, measured, photo.channels >= 3 ? 3 : 1);
  Denoised result{photo, job.method->denoise.method, job.reason};
  const edgewise::ImageBuffer out{result.photo.pixels.data(), shape, edgewise::SampleType::u8, 0};
  edgewise::RunOptions options;
  options.backend = "cpu";
  options.noise = &job.noise;
  edgewise::run_filter(job.settings.spec, in, out, options);
  return result;
}

edgewise::DenoiseSettings settings_of(double method, double strength, double luminance, double colour) {
  edgewise::DenoiseSettings settings = edgewise::default_denoise();
  std::string error = edgewise::method_for_number(method, edgewise::builtin_registry(), settings.method);
  for (const auto& [flag, value] : {std::pair<const char*, double>{"strength", strength}, {"luminance", luminance},
                                    {"colour", colour}})
    if (error.empty()) error = edgewise::set_denoise_value(settings, flag, value);
  if (!error.empty()) throw std::invalid_argument(error);
  return settings;
}

// Panels side by side: each the same crop of its photo, enlarged `zoom`
// times (nearest neighbour, so the grain stays visible), a gap between.
Photo8 strip(const std::vector<Photo8>& panels, int x, int y, int size, int zoom) {
  constexpr int kGap = 6;
  constexpr uint8_t kGapGrey = 128;  // between light and dark themes
  const int channels = panels.front().channels, side = size * zoom;
  Photo8 out{int(panels.size()) * side + (int(panels.size()) - 1) * kGap, side, channels, {}};
  out.pixels.assign(size_t(out.width) * size_t(out.height) * size_t(channels), kGapGrey);
  for (size_t p = 0; p < panels.size(); ++p)
    for (int row = 0; row < side; ++row)
      for (int column = 0; column < side; ++column)
        for (int c = 0; c < channels; ++c) {
          const Photo8& from = panels[p];
          const size_t source = (size_t(y + row / zoom) * size_t(from.width) + size_t(x + column / zoom)) * channels;
          const size_t target = (size_t(row) * size_t(out.width) + size_t(p) * (side + kGap) + size_t(column)) * channels;
          out.pixels[target + size_t(c)] = from.pixels[source + size_t(c)];
        }
  return out;
}

// Strips of equal width one above the other, a gap between.
Photo8 stack(const std::vector<Photo8>& strips) {
  constexpr int kGap = 6;
  constexpr uint8_t kGapGrey = 128;
  Photo8 out{strips.front().width, 0, strips.front().channels, {}};
  for (const Photo8& strip : strips) {
    if (out.height > 0) out.pixels.insert(out.pixels.end(), size_t(kGap) * size_t(out.width) * size_t(out.channels), kGapGrey);
    out.pixels.insert(out.pixels.end(), strip.pixels.begin(), strip.pixels.end());
    out.height += (out.height > 0 ? kGap : 0) + strip.height;
  }
  return out;
}

// One picture of the guide, and what it shows.
void picture(const std::string& dir, const std::string& name, const Photo8& image, const std::string& shows) {
  write_photo(dir + "/" + name + ".png", image);
  std::printf("%s.png\t%s\n", name.c_str(), shows.c_str());
}

int guide(const std::string& data, const std::string& dir) {
  std::filesystem::create_directories(dir);
  const Photo8 astronaut = read_photo(data + "/astronaut.png"), camera = read_photo(data + "/camera.png");
  const edgewise::DenoiseSettings defaults = edgewise::default_denoise();
  // 128-pixel crops at 200 % (256-pixel panels): the face and its
  // surroundings large enough to read in the Help window (issue 37: the
  // 96-pixel crops read as tiny); two or three panels to a row, so no
  // picture is wider than the window's 880 pixels.
  const int face_x = 64, face_y = 12, size = 128, zoom = 2;  // the astronaut's face
  const int man_x = 96, man_y = 36;                         // the cameraman's head and camera

  // Which method for which photo: each as shot, then Denoise's defaults.
  struct Case {
    const char* name;
    const Photo8& photo;
    int level;
    bool jpeg;
    int variant, x, y;
  };
  const Case cases[] = {{"phone-jpeg", astronaut, 2, true, 1, face_x, face_y},
                        {"raw-export", astronaut, 2, false, 2, face_x, face_y},
                        {"film-scan", camera, 2, false, 0, man_x, man_y},
                        {"low-light", astronaut, 3, true, 4, face_x, face_y}};
  for (const Case& c : cases) {
    const Photo8 noisy = develop(c.photo, c.level, c.jpeg, c.variant);
    const Denoised clean = denoise(noisy, defaults);
    picture(dir, c.name, strip({noisy, clean.photo}, c.x, c.y, size, zoom),
            "as shot | Denoise's defaults (" + clean.reason + ")");
  }
  // Strength: half, as measured, twice.
  const Photo8 phone = develop(astronaut, 2, true, 1);
  std::vector<Photo8> strengths = {phone};
  for (double strength : {0.5, 1.0, 2.0}) strengths.push_back(denoise(phone, settings_of(-1, strength, 1, 1)).photo);
  picture(dir, "strength",
          stack({strip({strengths[0], strengths[1]}, face_x, face_y, size, zoom),
                 strip({strengths[2], strengths[3]}, face_x, face_y, size, zoom)}),
          "as shot | strength 0.5, then strength 1 | 2 (two to a row)");
  // Each method's defaults on the same photo, three to a row.
  const Photo8 raw = develop(astronaut, 2, false, 2);
  std::vector<Photo8> methods = {raw};
  std::string names = "as shot";
  for (const edgewise::FilterInfo* method : edgewise::denoise_methods(edgewise::builtin_registry())) {
    const double number = edgewise::method_number(method, edgewise::builtin_registry());
    methods.push_back(denoise(raw, settings_of(number, 1, 1, 1)).photo);
    names += std::string(" | ") + method->denoise.method;
  }
  std::vector<Photo8> rows;
  for (size_t first = 0; first < methods.size(); first += 3) {
    std::vector<Photo8> row(methods.begin() + long(first), methods.begin() + long(std::min(first + 3, methods.size())));
    while (row.size() < 3) row.push_back(Photo8{raw.width, raw.height, raw.channels, std::vector<uint8_t>(raw.pixels.size(), 128)});
    rows.push_back(strip(row, face_x, face_y, size, zoom));
  }
  picture(dir, "methods", stack(rows), names + " (three to a row)");
  // Colour noise alone: luminance 0.5 keeps grain, colour 2 removes blotches.
  const Photo8 low = develop(astronaut, 3, true, 4);
  picture(dir, "colour",
          strip({low, denoise(low, settings_of(-1, 1, 1, 1)).photo, denoise(low, settings_of(-1, 1, 0.5, 2)).photo},
                face_x, face_y, size, zoom),
          "as shot | defaults | luminance 0.5, colour 2");
  return 0;
}

int methods() {
  const edgewise::Registry& registry = edgewise::builtin_registry();
  for (const edgewise::FilterInfo* method : edgewise::denoise_methods(registry))
    std::printf("%d\t%s\n", edgewise::method_number(method, registry), method->denoise.method);
  return 0;
}

// Mean absolute difference in code values, and PSNR in dB.
double mean_difference(const Photo8& a, const Photo8& b) {
  double sum = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i) sum += std::abs(int(a.pixels[i]) - int(b.pixels[i]));
  return sum / double(a.pixels.size());
}

double psnr(const Photo8& a, const Photo8& b) {
  double sum = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i) {
    const double d = double(a.pixels[i]) - double(b.pixels[i]);
    sum += d * d;
  }
  return 10 * std::log10(255.0 * 255.0 / std::max(sum / double(a.pixels.size()), 1e-12));
}

// "Visibly": the mean change at least kVisibleChange code values (the
// methods change these photos by 6-23 on average, measured), and the
// result closer to the noise-free development than the noisy photo by at
// least kCloserDb (measured: +0.56 to +8.1 dB).
constexpr double kVisibleChange = 1.0;
constexpr double kCloserDb = 0.5;

int defaults(const std::string& data) {
  const edgewise::Registry& registry = edgewise::builtin_registry();
  struct Case {
    const char* name;
    std::string file;
    int level;
    bool jpeg;
    int variant;
  };
  const Case cases[] = {{"phone-jpeg", "astronaut.png", 2, true, 1},
                        {"raw-export", "astronaut.png", 3, false, 2},
                        {"grey-raw", "camera.png", 3, false, 0}};
  int failures = 0;
  for (const Case& c : cases) {
    const edgewise_quality::Development shot =
        edgewise_quality::develop(read_photo(data + "/" + c.file), edgewise_quality::camera_case(c.level, c.variant, c.jpeg));
    const double noisy_db = psnr(shot.noisy, shot.clean);
    for (const edgewise::FilterInfo* method : edgewise::denoise_methods(registry)) {
      const Denoised result = denoise(shot.noisy, settings_of(edgewise::method_number(method, registry), 1, 1, 1));
      const double change = mean_difference(result.photo, shot.noisy);
      const double gain = psnr(result.photo, shot.clean) - noisy_db;
      const bool ok = change >= kVisibleChange && gain >= kCloserDb;
      failures += ok ? 0 : 1;
      std::printf("%s %-10s %-22s mean change %.2f code values, PSNR %.2f -> %.2f dB (%+.2f)\n", ok ? "PASS" : "FAIL",
                  c.name, method->denoise.method, change, noisy_db, noisy_db + gain, gain);
    }
  }
  return failures == 0 ? 0 : 1;
}

int usage() {
  std::fprintf(stderr,
               "usage: denoise_tool develop IN OUT LEVEL jpeg|raw VARIANT\n"
               "       denoise_tool denoise IN OUT METHOD STRENGTH LUMINANCE COLOUR\n"
               "       denoise_tool methods\n"
               "       denoise_tool defaults DATA_DIR\n"
               "       denoise_tool guide DATA_DIR OUT_DIR\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "develop" && argc == 7) {
      write_photo(argv[3], develop(read_photo(argv[2]), std::atoi(argv[4]), std::string(argv[5]) == "jpeg",
                                   std::atoi(argv[6])));
      return 0;
    }
    if (command == "denoise" && argc == 8) {
      const Denoised result = denoise(read_photo(argv[2]), settings_of(std::atof(argv[4]), std::atof(argv[5]),
                                                                       std::atof(argv[6]), std::atof(argv[7])));
      write_photo(argv[3], result.photo);
      std::printf("%s%s%s\n", result.method.c_str(), result.reason.empty() ? "" : ": ", result.reason.c_str());
      return 0;
    }
    if (command == "methods" && argc == 2) return methods();
    if (command == "defaults" && argc == 3) return defaults(argv[2]);
    if (command == "guide" && argc == 4) return guide(argv[2], argv[3]);
    return usage();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "denoise_tool: %s\n", error.what());
    return 1;
  }
}
