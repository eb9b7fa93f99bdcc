// The CLI's codecs (issue 11): encode and decode times of PNG, JPEG and TIFF
// on a 24 MP photo-like image, the PNG encoders we chose among (libpng +
// zlib, libspng, zlib in parallel blocks as pigz does, libdeflate), and the
// same PNG -> PNG and JPEG -> PNG jobs run by ImageMagick's convert, G'MIC's
// gmic and the edgewise CLI, all timed in one run. bench/RESULTS.md,
// "CLI codecs (issue 11)", records the numbers.
//
// The image: tests/data/astronaut.png upscaled bilinearly to 6000x4000 with
// Gaussian noise of sigma 3 code values added, which compresses about as
// well as a camera photo (PNG at about half the raw size); pure upscaling
// would compress far better than any photo.
//
// Usage: bench_codecs [runs] [work directory] [batch size]
//   (median of runs, default 3; batch of 20 files)
#include <libdeflate.h>
#include <png.h>
#include <spng.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bilateral.h"
#include "engine.h"
#include "image_file.h"
#include "jobs.h"

namespace {

using edgewise_cli::DecodedImage;
using edgewise_cli::WriteOptions;

constexpr int kWidth = 6000, kHeight = 4000;

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median_seconds(int runs, const std::function<void()>& body) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    const double start = seconds_now();
    body();
    times.push_back(seconds_now() - start);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

size_t file_size(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 ? size_t(info.st_size) : 0;
}

// Bilinear upscale of the test photo plus noise; bits 8 or 16.
DecodedImage photo_like(int bits) {
  const DecodedImage source = edgewise_cli::read_image(EDGEWISE_SOURCE_DIR "/tests/data/astronaut.png");
  DecodedImage image;
  image.width = kWidth;
  image.height = kHeight;
  image.channels = 3;
  image.bits = bits;
  image.allocate();
  std::mt19937 random(2026);
  std::normal_distribution<float> noise(0.0f, 3.0f);
  const float scale = bits == 16 ? 257.0f : 1.0f, top = bits == 16 ? 65535.0f : 255.0f;
  for (int y = 0; y < kHeight; ++y) {
    const float sy = std::clamp((y + 0.5f) * source.height / kHeight - 0.5f, 0.0f, source.height - 1.001f);
    const int y0 = int(sy);
    const float fy = sy - y0;
    for (int x = 0; x < kWidth; ++x) {
      const float sx = std::clamp((x + 0.5f) * source.width / kWidth - 0.5f, 0.0f, source.width - 1.001f);
      const int x0 = int(sx);
      const float fx = sx - x0;
      for (int c = 0; c < 3; ++c) {
        auto at = [&](int xx, int yy) { return float(source.bytes[(size_t(yy) * source.width + xx) * 3 + c]); };
        const float value = (at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx) * (1 - fy) +
                            (at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx) * fy + noise(random);
        const float sample = std::clamp(std::round(value * scale), 0.0f, top);
        const size_t index = (size_t(y) * kWidth + x) * 3 + c;
        if (bits == 8) {
          image.bytes[index] = uint8_t(sample);
        } else {
          const uint16_t wide = uint16_t(sample);
          std::memcpy(image.bytes.data() + 2 * index, &wide, 2);
        }
      }
    }
  }
  return image;
}

DecodedImage as_float(const DecodedImage& image) {
  DecodedImage result;
  result.width = image.width;
  result.height = image.height;
  result.channels = image.channels;
  result.bits = 32;
  result.allocate();
  float* out = reinterpret_cast<float*>(result.bytes.data());
  for (size_t i = 0; i < image.bytes.size(); ++i) out[i] = image.bytes[i] / 255.0f;
  return result;
}

// ---- the PNG encoders we did not choose ----

// The CLI's writer before issue 11: libpng, zlib level 4, adaptive filters.
void write_libpng(const std::string& path, const DecodedImage& image, int level) {
  FILE* file = std::fopen(path.c_str(), "wb");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  png_init_io(png, file);
  png_set_IHDR(png, info, image.width, image.height, image.bits, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, level);
  png_write_info(png, info);
  if (image.bits == 16) png_set_swap(png);
  for (int y = 0; y < image.height; ++y) png_write_row(png, image.bytes.data() + size_t(y) * image.row_bytes());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  std::fclose(file);
}

void write_spng(const std::string& path, const DecodedImage& image, int level) {
  FILE* file = std::fopen(path.c_str(), "wb");
  spng_ctx* context = spng_ctx_new(SPNG_CTX_ENCODER);
  spng_set_png_file(context, file);
  spng_ihdr header{};
  header.width = uint32_t(image.width);
  header.height = uint32_t(image.height);
  header.bit_depth = uint8_t(image.bits);
  header.color_type = SPNG_COLOR_TYPE_TRUECOLOR;
  spng_set_ihdr(context, &header);
  spng_set_option(context, SPNG_IMG_COMPRESSION_LEVEL, level);
  const int status =
      spng_encode_image(context, image.bytes.data(), image.bytes.size(), SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
  spng_ctx_free(context);
  std::fclose(file);
  if (status) throw std::runtime_error(std::string("libspng: ") + spng_strerror(status));
}

DecodedImage read_spng(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "rb");
  spng_ctx* context = spng_ctx_new(0);
  spng_set_png_file(context, file);
  spng_ihdr header{};
  spng_get_ihdr(context, &header);
  DecodedImage image;
  image.width = int(header.width);
  image.height = int(header.height);
  image.channels = 3;
  image.bits = header.bit_depth;
  image.allocate();
  const int format = SPNG_FMT_PNG;  // the file's own layout, 16-bit samples in host byte order
  const int status = spng_decode_image(context, image.bytes.data(), image.bytes.size(), format, 0);
  spng_ctx_free(context);
  std::fclose(file);
  if (status) throw std::runtime_error(std::string("libspng: ") + spng_strerror(status));
  return image;
}

// pigz's method: rows filtered (Paeth), split into one block per thread,
// each deflated by zlib with the previous 32 KiB as its dictionary and
// ended by a sync flush, so the pieces join into one zlib stream. Returns
// the stream's size (the file would add only chunk headers).
size_t deflate_in_parallel_blocks(const DecodedImage& image, int level, int threads) {
  const size_t stride = image.row_bytes() + 1;
  std::vector<uint8_t> filtered(stride * image.height);
  for (int y = 0; y < image.height; ++y) {
    const uint8_t* row = image.bytes.data() + size_t(y) * image.row_bytes();
    const uint8_t* up = y ? row - image.row_bytes() : nullptr;
    uint8_t* out = filtered.data() + size_t(y) * stride;
    out[0] = 4;
    for (size_t i = 0; i < image.row_bytes(); ++i) {
      const int a = i >= 3 ? row[i - 3] : 0, b = up ? up[i] : 0, c = up && i >= 3 ? up[i - 3] : 0;
      const int pa = std::abs(b - c), pb = std::abs(a - c), pc = std::abs(a + b - 2 * c);
      out[1 + i] = uint8_t(row[i] - (pa <= pb && pa <= pc ? a : pb <= pc ? b : c));
    }
  }
  std::vector<std::vector<uint8_t>> pieces(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      const size_t begin = filtered.size() * t / threads, end = filtered.size() * (t + 1) / threads;
      z_stream stream{};
      deflateInit2(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
      if (t > 0) deflateSetDictionary(&stream, filtered.data() + begin - 32768, 32768);
      pieces[t].resize(deflateBound(&stream, end - begin) + 16);
      stream.next_in = filtered.data() + begin;
      stream.avail_in = uInt(end - begin);
      stream.next_out = pieces[t].data();
      stream.avail_out = uInt(pieces[t].size());
      deflate(&stream, t == threads - 1 ? Z_FINISH : Z_SYNC_FLUSH);
      pieces[t].resize(pieces[t].size() - stream.avail_out);
      deflateEnd(&stream);
    });
  for (std::thread& worker : workers) worker.join();
  size_t total = 6;  // zlib header and Adler-32
  for (const auto& piece : pieces) total += piece.size();
  return total;
}

// ---- the table ----

void print_row(const std::string& what, double seconds, size_t bytes = 0) {
  if (bytes)
    std::printf("| %-52s | %7.2f | %7.1f |\n", what.c_str(), seconds, bytes / 1048576.0);
  else
    std::printf("| %-52s | %7.2f |         |\n", what.c_str(), seconds);
  std::fflush(stdout);
}

// An encoder's time, and the size of the file it wrote.
void time_encode(const std::string& what, int runs, const std::string& path, const std::function<void()>& encode) {
  const double seconds = median_seconds(runs, encode);
  print_row(what, seconds, file_size(path));
}

void time_decode(const std::string& what, int runs, const std::function<void()>& decode) {
  print_row(what, median_seconds(runs, decode));
}

bool have_command(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

void time_command(const std::string& what, const std::string& command, const std::string& output, int runs) {
  bool failed = false;
  const double seconds = median_seconds(runs, [&] { failed |= std::system((command + " 2>/dev/null").c_str()) != 0; });
  if (failed)
    std::printf("| %-52s | failed  |         |\n", what.c_str());
  else
    print_row(what, seconds, file_size(output));
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  const std::string dir = argc > 2 ? argv[2] : "/tmp/edgewise_bench_codecs";
  std::system(("mkdir -p " + dir).c_str());
  auto file = [&](const std::string& name) { return dir + "/" + name; };

  const DecodedImage photo = photo_like(8), photo16 = photo_like(16), photo_float = as_float(photo);
  std::printf("%dx%d RGB photo-like image (%.1f MP), %u hardware threads, median of %d runs\n\n", kWidth, kHeight,
              kWidth * kHeight / 1e6, std::thread::hardware_concurrency(), runs);
  std::printf("| %-52s | seconds | MiB     |\n|%s|---------|---------|\n", "codec, job", std::string(54, '-').c_str());

  WriteOptions options;
  for (int level : {1, 2, 4, 6, 9}) {
    options.png_compression = level;
    const std::string path = file("edgewise_" + std::to_string(level) + ".png");
    time_encode("PNG encode, edgewise (libdeflate " + std::to_string(level) +
                    (level == edgewise_cli::kDefaultPngCompression ? ", default)" : ")"),
                runs, path, [&] { edgewise_cli::write_png(path, photo, options); });
  }
  options = WriteOptions{};
  edgewise_cli::write_png(file("in.png"), photo, options);
  time_encode("PNG encode, libpng + zlib 4 (the writer before)", runs, file("libpng.png"),
              [&] { write_libpng(file("libpng.png"), photo, 4); });
  for (int level : {1, 6})
    time_encode("PNG encode, libspng + zlib " + std::to_string(level), runs, file("spng.png"),
                [&] { write_spng(file("spng.png"), photo, level); });
  const int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  for (int level : {1, 4}) {
    size_t bytes = 0;
    const double seconds = median_seconds(runs, [&] { bytes = deflate_in_parallel_blocks(photo, level, threads); });
    print_row(
        "PNG encode, zlib " + std::to_string(level) + " in " + std::to_string(threads) + " parallel blocks (no file)",
        seconds, bytes);
  }
  time_decode("PNG decode, edgewise (libpng)", runs, [&] { edgewise_cli::read_png(file("in.png")); });
  time_decode("PNG decode, libspng", runs, [&] { read_spng(file("in.png")); });
  time_encode("PNG 16-bit encode, edgewise (default)", runs, file("in16.png"),
              [&] { edgewise_cli::write_png(file("in16.png"), photo16, options); });
  time_decode("PNG 16-bit decode, edgewise (libpng)", runs, [&] { edgewise_cli::read_png(file("in16.png")); });

  time_encode("JPEG encode, quality 95, 4:4:4", runs, file("in.jpg"),
              [&] { edgewise_cli::write_jpeg(file("in.jpg"), photo, options); });
  time_decode("JPEG decode", runs, [&] { edgewise_cli::read_jpeg(file("in.jpg")); });

  for (const char* compression : {"deflate", "lzw", "zstd", "none"}) {
    options.tiff_compression = compression;
    const std::string path = file(std::string("in_") + compression + ".tif");
    time_encode(
        std::string("TIFF encode, ") + compression + (options.tiff_compression == "deflate" ? " (default)" : ""), runs,
        path, [&] { edgewise_cli::write_tiff(path, photo, options); });
    time_decode(std::string("TIFF decode, ") + compression, runs, [&] { edgewise_cli::read_tiff(path); });
  }
  options = WriteOptions{};
  time_encode("TIFF float encode, deflate + float predictor", runs, file("float.tif"),
              [&] { edgewise_cli::write_tiff(file("float.tif"), photo_float, options); });
  time_decode("TIFF float decode", runs, [&] { edgewise_cli::read_tiff(file("float.tif")); });

  // Whole jobs as a user runs them: each tool's own defaults.
  const std::string in_png = file("in.png"), in_jpg = file("in.jpg"), out = file("job_out.png");
  const std::string convert = access("/usr/bin/convert", X_OK) == 0 ? "/usr/bin/convert" : "convert";
  if (have_command(convert)) {
    time_command("job PNG -> PNG, ImageMagick convert (no filter)", convert + " " + in_png + " " + out, out, runs);
    time_command("job JPEG -> PNG, ImageMagick convert (no filter)", convert + " " + in_jpg + " " + out, out, runs);
  }
  if (have_command("gmic")) {
    time_command("job PNG -> PNG, gmic (no filter)", "gmic -v -99 " + in_png + " -o " + out, out, runs);
    time_command("job JPEG -> PNG, gmic (no filter)", "gmic -v -99 " + in_jpg + " -o " + out, out, runs);
    time_command("job JPEG -> PNG, gmic -bilateral 2,12", "gmic -v -99 " + in_jpg + " -bilateral 2,12 -o " + out, out,
                 runs);
  }
  const std::string edgewise = std::string(EDGEWISE_CLI) + " --backend cpu --sigma-s 2 --sigma-r 12 ";
  time_command("job PNG -> PNG, edgewise CLI (bilateral, CPU)", edgewise + in_png + " -o " + out, out, runs);
  time_command("job JPEG -> PNG, edgewise CLI (bilateral, CPU)", edgewise + in_jpg + " -o " + out, out, runs);

  // A batch of JPEGs to JPEG, against the filter alone on the same images
  // in memory (the goal: the batch within 20 % of the filter alone, the
  // codecs hidden behind it). Twice: at the CLI's defaults (what a user
  // who gives no option runs) and at the small window of the jobs above,
  // where the filter is cheapest beside the codecs.
  const int batch = argc > 3 ? std::max(1, std::atoi(argv[3])) : 20;
  std::system(("rm -rf " + file("batch_in") + " " + file("batch_out") + "; mkdir -p " + file("batch_in") + " " +
               file("batch_out"))
                  .c_str());
  for (int i = 0; i < batch; ++i)
    std::system(("cp " + in_jpg + " " + file("batch_in/photo" + std::to_string(i) + ".jpg")).c_str());
  DecodedImage decoded = edgewise_cli::read_jpeg(in_jpg);
  auto batch_rows = [&](const std::string& label, const edgewise::BilateralParameters& parameters,
                        const std::string& cli_options) {
    const edgewise::FilterSpec spec = edgewise::bilateral_spec(parameters);
    edgewise::RunOptions run;
    run.backend = "cpu";
    DecodedImage filtered = decoded;
    const double filter_seconds = median_seconds(
        runs, [&] { edgewise::run_filter(spec, edgewise_cli::view(decoded), edgewise_cli::view(filtered), run); });
    print_row("filter alone (bilateral " + label + ", CPU), one image in memory", filter_seconds);
    print_row("filter alone x " + std::to_string(batch), filter_seconds * batch);
    const std::string command = std::string(EDGEWISE_CLI) + " --backend cpu " + cli_options + file("batch_in/*.jpg") +
                                " -o " + file("batch_out") + " 2>/dev/null";
    const double batch_seconds = median_seconds(1, [&] { std::system(command.c_str()); });
    print_row("batch of " + std::to_string(batch) + " JPEG -> JPEG, edgewise CLI (bilateral " + label + ", CPU)",
              batch_seconds);
    std::printf("batch / filter alone (%s): %.3f\n\n", label.c_str(), batch_seconds / (filter_seconds * batch));
  };
  std::printf("\n");
  batch_rows("defaults", edgewise::BilateralParameters{}, "");
  edgewise::BilateralParameters small;
  small.sigma_s = 2.0f;
  small.sigma_r = 12.0f;
  batch_rows("sigma-s 2, sigma-r 12", small, "--sigma-s 2 --sigma-r 12 ");
  return 0;
}
