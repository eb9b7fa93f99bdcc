#include "cli_test_support.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <png.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <tiffio.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "bilateral.h"
#include "float_image.h"

namespace edgewise_cli_test {

const char* const kFilterArgs = "--backend cpu --mode lab --sigma-s 2 --sigma-r 12";

edgewise::FilterSpec filter_args_spec() {
  edgewise::BilateralParameters parameters;
  parameters.mode = edgewise::ColorMode::lab;
  parameters.sigma_s = 2.0f;
  parameters.sigma_r = 12.0f;
  return edgewise::bilateral_spec(parameters);
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

std::string cli_program() {
  const char* copy = std::getenv("EDGEWISE_TEST_CLI");
  return copy && *copy ? copy : EDGEWISE_CLI;
}

std::string test_data_dir() {
  const char* copy = std::getenv("EDGEWISE_TEST_DATA_DIR");
  return copy && *copy ? copy : EDGEWISE_TEST_DATA;
}

CliResult run_cli(const std::string& args, const std::string& prefix) {
  // One pair of capture files per call and process: ctest runs the test
  // cases of this program as parallel processes.
  static int calls = 0;
  const std::string stem =
      ::testing::TempDir() + "/edgewise_cli_" + std::to_string(getpid()) + "_" + std::to_string(++calls);
  const std::string command = prefix + " " + cli_program() + " " + args + " >" + stem + ".out 2>" + stem + ".err";
  const int raw = std::system(command.c_str());
  CliResult result;
  result.status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  result.out = read_bytes(stem + ".out");
  result.err = read_bytes(stem + ".err");
  std::remove((stem + ".out").c_str());
  std::remove((stem + ".err").c_str());
  return result;
}

ScratchDir::ScratchDir() {
  std::string pattern = ::testing::TempDir() + "/edgewise-cli-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!mkdtemp(buffer.data())) throw std::runtime_error("mkdtemp failed");
  path_ = buffer.data();
}

ScratchDir::~ScratchDir() {
  // Tests make files unreadable and directories read-only; undo that first.
  const std::string command = "chmod -R u+rwx '" + path_ + "' 2>/dev/null; rm -rf '" + path_ + "'";
  if (std::system(command.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", path_.c_str());
}

std::vector<std::string> ScratchDir::entries() const {
  std::vector<std::string> names;
  if (DIR* dir = opendir(path_.c_str())) {
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool exists(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0;
}

mode_t file_mode(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 ? info.st_mode & 07777 : 0;
}

int line_count(const std::string& text) { return int(std::count(text.begin(), text.end(), '\n')); }

std::string squeeze_spaces(const std::string& text) {
  std::istringstream words(text);
  std::string word, out;
  while (words >> word) out += (out.empty() ? "" : " ") + word;
  return out;
}

bool running_as_root() { return geteuid() == 0; }

bool gpu_usable() {
  std::string why_not;
  return edgewise::find_backend(edgewise::installed_backends(), "cuda")->usable(why_not);
}

uint32_t sample(const DecodedImage& image, size_t index) {
  if (image.bits == 8) return image.bytes[index];
  uint16_t value;
  std::copy_n(image.bytes.data() + 2 * index, 2, reinterpret_cast<uint8_t*>(&value));
  return value;
}

float float_sample(const DecodedImage& image, size_t index) {
  float value;
  std::copy_n(image.bytes.data() + 4 * index, 4, reinterpret_cast<uint8_t*>(&value));
  return value;
}

namespace {

void set_sample(DecodedImage& image, size_t index, uint32_t value) {
  if (image.bits == 8) {
    image.bytes[index] = uint8_t(value);
  } else {
    const uint16_t v = uint16_t(value);
    std::copy_n(reinterpret_cast<const uint8_t*>(&v), 2, image.bytes.data() + 2 * index);
  }
}

size_t sample_count(const DecodedImage& image) {
  return size_t(image.width) * size_t(image.height) * size_t(image.channels);
}

}  // namespace

DecodedImage as_float(const DecodedImage& image, float gain) {
  DecodedImage result;
  result.width = image.width;
  result.height = image.height;
  result.channels = image.channels;
  result.bits = 32;
  result.allocate();
  const float scale = gain / (image.bits == 8 ? 255.0f : 65535.0f);
  for (size_t i = 0; i < sample_count(image); ++i) {
    const float value = float(sample(image, i)) * scale;
    std::copy_n(reinterpret_cast<const uint8_t*>(&value), 4, result.bytes.data() + 4 * i);
  }
  return result;
}

DecodedImage photo(int channels, int bits) {
  static const DecodedImage rgb = edgewise_cli::read_image(test_data_dir() + "/astronaut.png");
  static const DecodedImage grey = edgewise_cli::read_image(test_data_dir() + "/camera.png");
  const DecodedImage& source = channels >= 3 ? rgb : grey;
  DecodedImage image;
  image.width = source.width;
  image.height = source.height;
  image.channels = channels;
  image.bits = bits;
  image.allocate();
  const int colour = channels >= 3 ? 3 : 1;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x)
      for (int c = 0; c < channels; ++c) {
        const size_t pixel = size_t(y) * size_t(image.width) + size_t(x);
        uint32_t value;
        if (c < colour) {
          value = source.bytes[pixel * size_t(source.channels) + size_t(c)];
        } else {
          const bool hole = (x - 100) * (x - 100) + (y - 90) * (y - 90) < 400;
          value = hole ? 0 : uint32_t((x + y) * 255 / (image.width + image.height));
        }
        if (bits == 16) value = value * 257 + uint32_t((x * 7 + y * 3 + c) % 200);
        set_sample(image, pixel * size_t(channels) + size_t(c), std::min<uint32_t>(value, 65535));
      }
  return image;
}

void expect_cli_filters_like_the_engine(const std::string& args, const edgewise::FilterSpec& spec,
                                        const std::vector<Layout>& layouts) {
  for (const Layout& layout : layouts) {
    SCOPED_TRACE(std::to_string(layout.channels) + " channels, " + std::to_string(layout.bits) + "-bit");
    ScratchDir dir;
    const DecodedImage input = photo(layout.channels, layout.bits);
    edgewise_cli::write_image(dir.file("in.png"), FileFormat::png, input);
    const CliResult result = run_cli(args + " " + dir.file("in.png") + " -o " + dir.file("out.png"));
    ASSERT_EQ(result.status, 0) << result.err;
    EXPECT_EQ(result.err, "");
    EXPECT_LE(max_error_in_codes(edgewise_cli::read_image(dir.file("out.png")), engine_result(input, spec)), 0.51);
  }
}

PhotoJob::PhotoJob() : io(" " + dir.file("in.png") + " -o " + dir.file("out.png")) {
  edgewise_cli::write_image(dir.file("in.png"), FileFormat::png, photo(3, 8));
}

std::vector<float> engine_result(const DecodedImage& image, const edgewise::FilterSpec& spec) {
  const edgewise::ImageShape shape{image.width, image.height, image.channels};
  edgewise::FloatImage source(shape), result(shape);
  const float scale = image.bits == 8 ? 255.0f : 65535.0f;
  for (size_t i = 0; i < sample_count(image); ++i)
    source.pixels()[i] = image.bits == 32 ? float_sample(image, i) : float(sample(image, i)) / scale;
  edgewise::RunOptions options;
  options.backend = "cpu";
  edgewise::run_filter(spec, shape, source, result, options);
  return result.pixels();
}

static std::vector<double> errors_in_codes(const DecodedImage& image, const std::vector<float>& expected) {
  const double scale = image.bits == 8 ? 255.0 : 65535.0;
  std::vector<double> errors(sample_count(image));
  for (size_t i = 0; i < errors.size(); ++i) {
    const double want = std::clamp(double(expected[i]), 0.0, 1.0) * scale;
    errors[i] = std::fabs(double(sample(image, i)) - want);
  }
  return errors;
}

double max_error_in_codes(const DecodedImage& image, const std::vector<float>& expected) {
  if (sample_count(image) != expected.size()) return INFINITY;
  const std::vector<double> errors = errors_in_codes(image, expected);
  return *std::max_element(errors.begin(), errors.end());
}

double mean_error_in_codes(const DecodedImage& image, const std::vector<float>& expected) {
  if (sample_count(image) != expected.size()) return INFINITY;
  const std::vector<double> errors = errors_in_codes(image, expected);
  double sum = 0.0;
  for (double e : errors) sum += e;
  return sum / double(errors.size());
}

namespace {

struct PngWriter {
  explicit PngWriter(const std::string& path) : file(std::fopen(path.c_str(), "wb")) {
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    info = png_create_info_struct(png);
    png_init_io(png, file);
  }
  ~PngWriter() {
    png_destroy_write_struct(&png, &info);
    std::fclose(file);
  }
  FILE* file;
  png_structp png;
  png_infop info;
};

}  // namespace

DecodedImage write_palette_png(const std::string& path, bool transparent) {
  const int width = 37, height = 23;  // odd sizes on purpose
  const png_color palette[4] = {{10, 20, 30}, {200, 40, 60}, {90, 220, 120}, {250, 250, 240}};
  const png_byte alpha[4] = {255, 128, 0, 255};
  DecodedImage expected;
  expected.width = width;
  expected.height = height;
  expected.channels = transparent ? 4 : 3;
  expected.bits = 8;
  expected.allocate();
  std::vector<png_byte> indices(size_t(width) * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const int index = ((x / 5) + (y / 4)) % 4;
      indices[size_t(y) * width + x] = png_byte(index);
      uint8_t* pixel = expected.bytes.data() + (size_t(y) * width + x) * size_t(expected.channels);
      pixel[0] = palette[index].red;
      pixel[1] = palette[index].green;
      pixel[2] = palette[index].blue;
      if (transparent) pixel[3] = alpha[index];
    }
  PngWriter writer(path);
  png_set_IHDR(writer.png, writer.info, width, height, 8, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_PLTE(writer.png, writer.info, palette, 4);
  if (transparent) png_set_tRNS(writer.png, writer.info, alpha, 4, nullptr);
  png_write_info(writer.png, writer.info);
  for (int y = 0; y < height; ++y) png_write_row(writer.png, indices.data() + size_t(y) * width);
  png_write_end(writer.png, nullptr);
  return expected;
}

DecodedImage write_one_bit_interlaced_png(const std::string& path) {
  const int width = 41, height = 29;
  DecodedImage expected;
  expected.width = width;
  expected.height = height;
  expected.channels = 1;
  expected.bits = 8;
  expected.allocate();
  std::vector<png_byte> packed(size_t((width + 7) / 8) * height, 0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const bool white = ((x / 3) ^ (y / 2)) & 1;
      expected.bytes[size_t(y) * width + x] = white ? 255 : 0;
      if (white) packed[size_t(y) * ((width + 7) / 8) + x / 8] |= png_byte(0x80 >> (x % 8));
    }
  PngWriter writer(path);
  png_set_IHDR(writer.png, writer.info, width, height, 1, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_ADAM7,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(writer.png, writer.info);
  std::vector<png_bytep> rows(height);
  for (int y = 0; y < height; ++y) rows[y] = packed.data() + size_t(y) * ((width + 7) / 8);
  png_write_image(writer.png, rows.data());  // handles the Adam7 passes
  png_write_end(writer.png, nullptr);
  return expected;
}

namespace {

struct TiffWriter {
  TiffWriter(const std::string& path, const char* mode) : tiff(TIFFOpen(path.c_str(), mode)) {}
  ~TiffWriter() { TIFFClose(tiff); }
  TIFF* tiff;
};

void set_basic_tags(TIFF* tiff, uint32_t width, uint32_t height, uint16_t samples, uint16_t bits,
                    uint16_t photometric) {
  TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, width);
  TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, height);
  TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, samples);
  TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, bits);
  TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, photometric);
  TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, height);
}

void write_rows(TIFF* tiff, uint32_t height, size_t row_bytes) {
  std::vector<uint8_t> row(row_bytes, 77);
  for (uint32_t y = 0; y < height; ++y) TIFFWriteScanline(tiff, row.data(), y, 0);
}

}  // namespace

void write_big_endian_tiff(const std::string& path, const DecodedImage& image) {
  TiffWriter writer(path, "wb");  // "b": big-endian byte order
  set_basic_tags(writer.tiff, image.width, image.height, uint16_t(image.channels), uint16_t(image.bits),
                 image.channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  if (image.channels == 2 || image.channels == 4) {
    const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(writer.tiff, TIFFTAG_EXTRASAMPLES, 1, &extra);
  }
  std::vector<uint8_t> row(image.row_bytes());
  for (int y = 0; y < image.height; ++y) {
    std::copy_n(image.bytes.data() + size_t(y) * image.row_bytes(), image.row_bytes(), row.data());
    TIFFWriteScanline(writer.tiff, row.data(), uint32_t(y), 0);  // libtiff swaps to big-endian
  }
}

void write_tiled_tiff(const std::string& path, const DecodedImage& image, uint32_t tile_width, uint32_t tile_length) {
  TiffWriter writer(path, "w");
  TIFF* tiff = writer.tiff;
  set_basic_tags(tiff, image.width, image.height, uint16_t(image.channels), uint16_t(image.bits),
                 image.channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFUnsetField(tiff, TIFFTAG_ROWSPERSTRIP);
  TIFFSetField(tiff, TIFFTAG_TILEWIDTH, tile_width);
  TIFFSetField(tiff, TIFFTAG_TILELENGTH, tile_length);
  if (image.bits == 32) TIFFSetField(tiff, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
  if (image.channels == 2 || image.channels == 4) {
    const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(tiff, TIFFTAG_EXTRASAMPLES, 1, &extra);
  }
  const size_t pixel_bytes = image.row_bytes() / size_t(image.width);
  std::vector<uint8_t> tile(tile_width * tile_length * pixel_bytes);
  for (uint32_t y = 0; y < uint32_t(image.height); y += tile_length)
    for (uint32_t x = 0; x < uint32_t(image.width); x += tile_width) {
      std::fill(tile.begin(), tile.end(), uint8_t(0xa5));  // what lies past the image must not show
      for (uint32_t row = 0; row < tile_length && y + row < uint32_t(image.height); ++row)
        std::copy_n(image.bytes.data() + (y + row) * image.row_bytes() + x * pixel_bytes,
                    std::min(tile_width, uint32_t(image.width) - x) * pixel_bytes,
                    tile.data() + row * tile_width * pixel_bytes);
      TIFFWriteTile(tiff, tile.data(), x, y, 0, 0);
    }
}

void write_odd_tiff(const std::string& path, OddTiff kind) {
  const uint32_t width = 16, height = 8;
  TiffWriter writer(path, "w");
  TIFF* tiff = writer.tiff;
  switch (kind) {
    case OddTiff::floating_point:
      set_basic_tags(tiff, width, height, 1, 32, PHOTOMETRIC_MINISBLACK);
      TIFFSetField(tiff, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
      write_rows(tiff, height, width * 4);
      break;
    case OddTiff::palette: {
      set_basic_tags(tiff, width, height, 1, 8, PHOTOMETRIC_PALETTE);
      std::vector<uint16_t> map(256, 30000);
      TIFFSetField(tiff, TIFFTAG_COLORMAP, map.data(), map.data(), map.data());
      write_rows(tiff, height, width);
      break;
    }
    case OddTiff::planar:
      set_basic_tags(tiff, width, height, 3, 8, PHOTOMETRIC_RGB);
      TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_SEPARATE);
      for (uint16_t plane = 0; plane < 3; ++plane) {
        std::vector<uint8_t> row(width, 77);
        for (uint32_t y = 0; y < height; ++y) TIFFWriteScanline(tiff, row.data(), y, plane);
      }
      break;
    case OddTiff::two_pages:
      for (int page = 0; page < 2; ++page) {
        set_basic_tags(tiff, width, height, 1, 8, PHOTOMETRIC_MINISBLACK);
        write_rows(tiff, height, width);
        TIFFWriteDirectory(tiff);
      }
      break;
    case OddTiff::premultiplied_alpha: {
      set_basic_tags(tiff, width, height, 4, 8, PHOTOMETRIC_RGB);
      const uint16_t extra = EXTRASAMPLE_ASSOCALPHA;
      TIFFSetField(tiff, TIFFTAG_EXTRASAMPLES, 1, &extra);
      write_rows(tiff, height, width * 4);
      break;
    }
  }
}

}  // namespace edgewise_cli_test
