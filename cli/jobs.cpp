#include "jobs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <set>
#include <stdexcept>

#include "atomic_file.h"
#include "progress_line.h"

namespace edgewise_cli {

namespace {

// Decoded inputs are kept from checking to filtering up to this many bytes,
// so a small batch is decoded once and a large one does not hold every photo
// in memory at the same time (those are decoded again when their turn comes).
constexpr size_t kKeepDecodedBytes = size_t(512) << 20;

bool is_directory(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool ends_with_slash(const std::string& path) { return !path.empty() && path.back() == '/'; }

std::string join(const std::string& directory, const std::string& name) {
  return ends_with_slash(directory) ? directory + name : directory + "/" + name;
}

// Output paths and formats, before any file is opened.
std::vector<Job> name_outputs(const std::vector<std::string>& inputs, const std::string& output) {
  const bool to_directory = is_directory(output);
  if (!to_directory && inputs.size() > 1)
    throw std::runtime_error("several inputs need OUTPUT to be an existing directory, and " + output + " is not");
  if (!to_directory && ends_with_slash(output))
    throw std::runtime_error("output directory " + output + " does not exist");
  std::vector<Job> jobs;
  std::map<std::string, std::string> claimed;  // output path -> input writing it
  for (const auto& input : inputs) {
    Job job;
    job.input = input;
    if (to_directory) {
      job.output = join(output, file_name_of(input));
      // The format of the input, found by content when it is read.
    } else {
      job.output = output;
      job.format = format_for_output(output);
    }
    const auto [previous, inserted] = claimed.emplace(job.output, input);
    if (!inserted)
      throw std::runtime_error("inputs " + previous->second + " and " + input + " would both be written to " +
                               job.output);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace

edgewise::ImageBuffer view(DecodedImage& image) {
  return {image.bytes.data(),
          {image.width, image.height, image.channels},
          image.bits == 16 ? edgewise::SampleType::u16 : edgewise::SampleType::u8,
          image.row_bytes()};
}

std::vector<Job> plan_jobs(const std::vector<std::string>& inputs, const std::string& output) {
  std::vector<Job> jobs = name_outputs(inputs, output);
  const bool to_directory = is_directory(output);
  std::set<std::string> directories;
  size_t kept_bytes = 0;
  for (Job& job : jobs) {
    DecodedImage image = read_image(job.input);
    if (to_directory) job.format = detect_format(job.input);
    check_writable(job.format, image, job.output);
    if (is_directory(job.output)) throw std::runtime_error("cannot write " + job.output + ": it is a directory");
    directories.insert(directory_of(job.output));
    if (kept_bytes + image.bytes.size() <= kKeepDecodedBytes) {
      kept_bytes += image.bytes.size();
      job.image = std::move(image);
    }
  }
  for (const auto& directory : directories) check_directory_writable(directory);
  return jobs;
}

// The adaptive filter's sigma_r' per pixel as a 16-bit grey image (RGB when
// each channel has its own), adapt-max mapping to white.
DecodedImage sigma_map_of(const DecodedImage& input, const edgewise::FilterSpec& spec) {
  const edgewise::ImageShape shape{input.width, input.height, input.channels};
  std::vector<float> pixels(size_t(shape.width) * size_t(shape.height) * size_t(shape.channels));
  DecodedImage source = input;
  edgewise::FilterSpec one_pass = spec;
  one_pass.iterations = 1;
  edgewise::RunOptions options;
  options.backend = edgewise::BackendChoice::cpu;
  options.plan_options.output_sigma = true;
  edgewise::run_filter(one_pass, view(source), edgewise::ImageBuffer{pixels.data(), shape, edgewise::SampleType::f32, 0},
                       options);
  const bool per_channel = spec.mode == edgewise::ColorMode::per_channel && input.channels >= 3;
  DecodedImage map;
  map.width = input.width;
  map.height = input.height;
  map.channels = per_channel ? 3 : 1;
  map.bits = 16;
  map.allocate();
  auto* out = reinterpret_cast<uint16_t*>(map.bytes.data());
  for (size_t p = 0; p < size_t(map.width) * size_t(map.height); ++p)
    for (int c = 0; c < map.channels; ++c)
      out[p * size_t(map.channels) + size_t(c)] =
          edgewise::float_to_u16(pixels[p * size_t(shape.channels) + size_t(c)] / spec.adapt_max);
  return map;
}

void run_jobs(std::vector<Job>& jobs, const edgewise::FilterSpec& spec, const edgewise::RunOptions& options,
              const std::string& sigma_map) {
  const bool terminal = isatty(STDERR_FILENO) == 1;
  for (size_t i = 0; i < jobs.size(); ++i) {
    Job& job = jobs[i];
    DecodedImage input = job.image.bytes.empty() ? read_image(job.input) : std::move(job.image);
    job.image = DecodedImage();
    DecodedImage result = input;  // same shape and sample type
    const std::string count =
        jobs.size() > 1 ? "[" + std::to_string(i + 1) + "/" + std::to_string(jobs.size()) + "] " : "";
    ProgressLine progress(count + file_name_of(job.input), terminal);
    edgewise::RunOptions run = options;
    run.progress = [&progress](double fraction) { return progress.update(fraction); };
    run.notice = [&progress](const std::string& text) { progress.message(text); };
    edgewise::run_filter(spec, view(input), view(result), run);
    DecodedImage map;
    if (!sigma_map.empty()) map = sigma_map_of(input, spec);
    write_atomically(job.output, [&](const std::string& temp) { write_image(temp, job.format, result); });
    if (!sigma_map.empty())
      write_atomically(sigma_map, [&](const std::string& temp) { write_image(temp, format_for_output(sigma_map), map); });
    progress.finish();
  }
}

}  // namespace edgewise_cli
