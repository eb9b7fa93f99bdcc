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
          image.bits == 32   ? edgewise::SampleType::f32
          : image.bits == 16 ? edgewise::SampleType::u16
                             : edgewise::SampleType::u8,
          image.row_bytes()};
}

std::vector<Job> plan_jobs(const std::vector<std::string>& inputs, const std::string& output,
                           const JobOptions& options) {
  std::vector<Job> jobs = name_outputs(inputs, output);
  const bool to_directory = is_directory(output);
  std::set<std::string> directories;
  size_t kept_bytes = 0;
  for (Job& job : jobs) {
    DecodedImage image = read_image(job.input, options.limits);
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

// An extra output's floats (0..1) as a 16-bit image.
DecodedImage to_16_bit(const std::vector<float>& samples, const edgewise::ImageShape& shape) {
  DecodedImage image;
  image.width = shape.width;
  image.height = shape.height;
  image.channels = shape.channels;
  image.bits = 16;
  image.allocate();
  auto* out = reinterpret_cast<uint16_t*>(image.bytes.data());
  for (size_t i = 0; i < samples.size(); ++i) out[i] = edgewise::float_to_u16(samples[i]);
  return image;
}

void run_jobs(std::vector<Job>& jobs, const edgewise::FilterSpec& spec, const edgewise::RunOptions& options,
              const std::map<std::string, std::string>& extra_outputs, const JobOptions& files) {
  const bool terminal = isatty(STDERR_FILENO) == 1;
  for (size_t i = 0; i < jobs.size(); ++i) {
    Job& job = jobs[i];
    DecodedImage input = job.image.bytes.empty() ? read_image(job.input, files.limits) : std::move(job.image);
    job.image = DecodedImage();
    DecodedImage result = input;  // same shape and sample type
    const std::string count =
        jobs.size() > 1 ? "[" + std::to_string(i + 1) + "/" + std::to_string(jobs.size()) + "] " : "";
    ProgressLine progress(count + file_name_of(job.input), terminal);
    edgewise::RunOptions run = options;
    run.progress = [&progress](double fraction) { return progress.update(fraction); };
    run.notice = [&progress](const std::string& text) { progress.message(text); };
    std::vector<std::vector<float>> extra_samples;
    std::vector<edgewise::ExtraImage> extras;
    for (const auto& [name, path] : extra_outputs) {
      const edgewise::ImageShape shape = edgewise::output_shape(spec, view(input).shape, name);
      extra_samples.emplace_back(size_t(shape.width) * size_t(shape.height) * size_t(shape.channels));
      extras.push_back({name, {extra_samples.back().data(), shape, edgewise::SampleType::f32, 0}});
    }
    edgewise::run_filter(spec, view(input), view(result), run, extras);
    write_atomically(job.output, [&](const std::string& temp) { write_image(temp, job.format, result, files.write); });
    for (size_t e = 0; e < extras.size(); ++e) {
      const std::string& path = extra_outputs.at(extras[e].name);
      const DecodedImage image = to_16_bit(extra_samples[e], extras[e].buffer.shape);
      write_atomically(path, [&](const std::string& temp) { write_image(temp, format_for_output(path), image); });
    }
    progress.finish();
  }
}

}  // namespace edgewise_cli
