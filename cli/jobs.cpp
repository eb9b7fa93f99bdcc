#include "jobs.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <map>
#include <new>
#include <set>
#include <stdexcept>
#include <utility>

#include "atomic_file.h"
#include "progress_line.h"

namespace edgewise_cli {

namespace {

bool is_directory(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool ends_with_slash(const std::string& path) { return !path.empty() && path.back() == '/'; }

std::string join(const std::string& directory, const std::string& name) {
  return ends_with_slash(directory) ? directory + name : directory + "/" + name;
}

// What a path names on disk, so that two spellings of one file (a
// relative and an absolute path, a link) compare equal: the device and
// inode of an existing file, else the resolved directory and the name.
std::string identity(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) == 0) return std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino);
  char* directory = realpath(directory_of(path).c_str(), nullptr);
  const std::string key = (directory ? std::string(directory) : directory_of(path)) + "/" + file_name_of(path);
  free(directory);
  return key;
}

// Output paths and formats, before any file is opened.
std::vector<Job> name_outputs(const std::vector<std::string>& inputs, const std::string& output) {
  const bool to_directory = is_directory(output);
  if (!to_directory && inputs.size() > 1)
    throw std::runtime_error("several inputs need OUTPUT to be an existing directory, and " + output + " is not");
  if (!to_directory && ends_with_slash(output))
    throw std::runtime_error("output directory " + output + " does not exist");
  std::vector<Job> jobs;
  for (const auto& input : inputs) {
    Job job;
    job.input = input;
    if (to_directory) {
      job.output = join(output, file_name_of(input));
      job.format = detect_format(input);  // the input's own, found by content
    } else {
      detect_format(input);  // exists, and is an image
      job.output = output;
      job.format = format_for_output(output);
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// No output may be another's, or an input: a result over its own input
// needs --overwrite, over another job's input never (that job would read
// the result). Extra outputs may replace neither.
void check_collisions(const std::vector<Job>& jobs, const JobOptions& options,
                      const std::map<std::string, std::string>& extra_outputs) {
  std::map<std::string, std::string> inputs;   // identity -> input path
  std::map<std::string, std::string> written;  // identity -> what writes it
  for (const Job& job : jobs) inputs.emplace(identity(job.input), job.input);
  for (const Job& job : jobs) {
    const std::string target = identity(write_target(job.output));
    const auto [previous, inserted] = written.emplace(target, job.input);
    if (!inserted)
      throw std::runtime_error("inputs " + previous->second + " and " + job.input + " would both be written to " +
                               job.output);
    const auto replaced = inputs.find(target);
    if (replaced == inputs.end()) continue;
    if (replaced->second != job.input && identity(replaced->second) != identity(job.input))
      throw std::runtime_error(job.output + " would replace the input " + replaced->second +
                               " before it is read; choose another output");
    if (!options.overwrite)
      throw std::runtime_error(job.output + " would replace the input " + job.input +
                               "; give --overwrite to replace it, or choose another output");
  }
  for (const auto& [name, path] : extra_outputs) {
    const std::string target = identity(write_target(path));
    if (inputs.count(target))
      throw std::runtime_error("the " + name + " image " + path + " would replace the input " + inputs[target]);
    if (written.count(target)) throw std::runtime_error("the " + name + " image " + path + " would replace the result");
    written.emplace(target, name);
  }
}

void check_output(const std::string& path, std::set<std::string>& directories) {
  if (is_directory(path)) throw std::runtime_error("cannot write " + path + ": it is a directory");
  const std::string target = write_target(path);
  check_name_fits(target);
  directories.insert(directory_of(target));
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

// A job's decoded input, read on its own thread while the job before it
// is filtered (the dialog has read it already).
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::future<DecodedImage> start_reading(Job& job, const JobOptions& files) {
  if (!job.image.bytes.empty()) {
    std::promise<DecodedImage> ready;
    ready.set_value(std::move(job.image));
    job.image = DecodedImage();
    return ready.get_future();
  }
  return std::async(std::launch::async, [path = job.input, limits = files.limits, &seconds = job.read_seconds] {
    const auto start = std::chrono::steady_clock::now();
    DecodedImage image = read_image(path, limits);
    seconds = seconds_since(start);
    return image;
  });
}

// What a filtered job hands to its writer: the result and the extra images.
struct Filtered {
  DecodedImage result;
  std::vector<std::pair<std::string, DecodedImage>> extras;  // file -> 16-bit image
};

// --filter auto: the whole image's noise measured once, the method for it
// and the noise it is handed (Strength, Luminance, Colour), as GIMP's
// Denoise entry plans its run; --verbose gives the reason the dialog shows.
edgewise::FilterSpec plan_auto(const Job& job, DecodedImage& input, const edgewise::DenoiseSettings& denoise,
                               edgewise::RunOptions& run, edgewise::NoiseEstimate& noise, bool verbose,
                               ProgressLine& progress) {
  const edgewise::NoiseEstimate measured = edgewise::estimate_noise(view(input));
  if (!measured.reading_note.empty() && run.notice) run.notice(measured.reading_note);
  const edgewise::DenoiseJob planned =
      edgewise::plan_denoise(denoise, measured, input.channels >= 3 ? 3 : 1, edgewise::builtin_registry(),
                             edgewise::recommend_context(run.backend, input.width, input.height));
  if (verbose) {
    const std::string why = planned.reason.empty() ? std::string(planned.method->denoise.method) : planned.reason;
    progress.message(job.input + ": auto method: " + why + " (--filter " + planned.method->name + ")");
  }
  noise = planned.noise;
  run.noise = &noise;
  return planned.settings.spec;
}

// The filter, on this thread (progress and notices go to its line).
Filtered filter_job(const Job& job, DecodedImage& input, const edgewise::FilterSpec& given_spec,
                    edgewise::RunOptions run, const std::map<std::string, std::string>& extra_outputs, bool verbose,
                    ProgressLine& progress, const edgewise::DenoiseSettings* denoise) {
  check_writable(job.format, input, job.output);
  try {
    Filtered filtered;
    filtered.result = input;  // same shape, sample type and metadata
    run.progress = [&progress](double fraction) { return progress.update(fraction); };
    run.notice = [&progress, &job](const std::string& text) { progress.message(job.input + ": " + text); };
    edgewise::NoiseEstimate noise;
    const edgewise::FilterSpec spec =
        denoise ? plan_auto(job, input, *denoise, run, noise, verbose, progress) : given_spec;
    std::vector<std::vector<float>> extra_samples;
    std::vector<edgewise::ExtraImage> extras;
    for (const auto& [name, path] : extra_outputs) {
      const edgewise::ImageShape shape = edgewise::output_shape(spec, view(input).shape, name);
      extra_samples.emplace_back(size_t(shape.width) * size_t(shape.height) * size_t(shape.channels));
      extras.push_back({name, {extra_samples.back().data(), shape, edgewise::SampleType::f32, 0}});
    }
    const auto start = std::chrono::steady_clock::now();
    const edgewise::RunReport report = edgewise::run_filter(spec, view(input), view(filtered.result), run, extras);
    if (verbose) {
      char timing[96];
      std::snprintf(timing, sizeof timing, ": read in %.2f s, filtered in %.2f s on ", job.read_seconds,
                    seconds_since(start));
      progress.message(job.input + timing + report.backend);
    }
    if (verbose && !report.auto_values.empty()) {
      char sigma[32];
      std::snprintf(sigma, sizeof sigma, "%.2f", report.noise_sigma);
      progress.message(job.input + ": noise " + sigma + " code values (" + report.noise_reading + " reading); auto " +
                       report.auto_values);
    }
    const std::string unchanged = edgewise::unchanged_notice(report);
    if (!unchanged.empty()) progress.message(job.input + ": " + unchanged);
    for (size_t e = 0; e < extras.size(); ++e)
      filtered.extras.emplace_back(extra_outputs.at(extras[e].name),
                                   to_16_bit(extra_samples[e], extras[e].buffer.shape));
    return filtered;
  } catch (const std::bad_alloc&) {
    throw std::runtime_error(not_enough_memory(job.input, input.width, input.height, input.bytes.size()));
  }
}

// Every file of a job, each whole or not at all; on its own thread while
// the next job is filtered. Its result: the seconds it took (for --verbose).
std::future<double> start_writing(const Job& job, Filtered filtered, const JobOptions& files) {
  return std::async(std::launch::async, [output = job.output, format = job.format, write = files.write,
                                         filtered = std::move(filtered)] {
    const auto start = std::chrono::steady_clock::now();
    write_atomically(output, [&](const std::string& temp) { write_image(temp, format, filtered.result, write); });
    // Not a structured binding: C++17 lambdas cannot capture one (clang refuses).
    for (const auto& extra : filtered.extras) {
      const std::string& path = extra.first;
      const DecodedImage& image = extra.second;
      write_atomically(path, [&](const std::string& temp) { write_image(temp, format_for_output(path), image); });
    }
    return seconds_since(start);
  });
}

// A GPU takes a few tenths of a second to start (the driver, a context, the
// kernels this filter launches, loaded on their first launch): the backend
// the run will use starts while the first file decodes, and filters a small
// small image with the run's filter. `unusable` says why a backend named
// on the command line cannot run, which fails the run once rather than once
// for each file. Any other failure here is left for the run, which makes
// the backend again and reports it.
struct BackendStart {
  std::string unusable;
  std::string name;  // the backend started, for --verbose
  double seconds = 0;
};

std::future<BackendStart> start_backend(edgewise::KeptBackends& kept, const edgewise::FilterSpec& spec,
                                        const edgewise::RunOptions& run) {
  const edgewise::BackendList& list = run.backends ? *run.backends : edgewise::installed_backends();
  if (const edgewise::BackendProvider* device = edgewise::first_choice(list, run.backend)) {
    return std::async(std::launch::async, [&kept, &spec, run, device] {
      const auto start = std::chrono::steady_clock::now();
      BackendStart result;
      std::string why_not;
      if (!device->usable(why_not)) {
        if (run.backend != "auto") result.unusable = device->name() + " backend requested but unavailable: " + why_not;
        return result;
      }
      try {
        result.name = kept.get(*device, run.backend_options).name();
        constexpr int kSide = 64;
        std::vector<uint8_t> pixels(size_t(kSide) * kSide * 3, 128), out(pixels.size());
        // Parameters at auto take any noise here: the kernels are the same.
        edgewise::NoiseEstimate noise;
        edgewise::ChannelNoise channel;
        channel.sigma = 5;
        channel.valid = true;
        noise.channels.assign(3, channel);
        edgewise::RunOptions warm;
        warm.noise = &noise;
        warm.backends = run.backends;
        warm.backend = device->id();
        warm.backend_options = run.backend_options;
        warm.kept = &kept;
        edgewise::run_filter(spec, {pixels.data(), {kSide, kSide, 3}, edgewise::SampleType::u8, 0},
                             {out.data(), {kSide, kSide, 3}, edgewise::SampleType::u8, 0}, warm);
      } catch (const std::exception&) {
      }
      result.seconds = seconds_since(start);
      return result;
    });
  }
  return {};
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

std::vector<Job> plan_jobs(const std::vector<std::string>& inputs, const std::string& output, const JobOptions& options,
                           const std::map<std::string, std::string>& extra_outputs) {
  std::vector<Job> jobs = name_outputs(inputs, output);
  check_collisions(jobs, options, extra_outputs);
  std::set<std::string> directories;
  for (const Job& job : jobs) check_output(job.output, directories);
  for (const auto& [name, path] : extra_outputs) {
    if (format_for_output(path) == FileFormat::jpeg)
      throw std::runtime_error(path + ": the " + name + " image is 16-bit; write PNG or TIFF");
    check_output(path, directories);
  }
  for (const auto& directory : directories) check_directory_writable(directory);
  return jobs;
}

// A pipeline of three stages on three threads: job i+1 is read while job
// i is filtered and job i-1 written, so on a GPU, where the filter takes
// milliseconds, the codecs of consecutive files run side by side. At most
// one read and one write are in flight: memory holds four images at most.
// Messages come from this thread only, in job order, except a write's
// failure, which is told once the writer is done (after the next job's
// filter).
BatchReport run_jobs(std::vector<Job>& jobs, const edgewise::FilterSpec& spec, const edgewise::RunOptions& options,
                     const std::map<std::string, std::string>& extra_outputs, const JobOptions& files,
                     const edgewise::DenoiseSettings* denoise) {
  const bool terminal = isatty(STDERR_FILENO) == 1;
  BatchReport report;
  // One backend for the whole batch: a GPU keeps its buffers from file to file.
  edgewise::KeptBackends kept;
  edgewise::RunOptions run = options;
  run.kept = &kept;
  std::vector<size_t> failed;
  std::future<DecodedImage> next_input;
  if (!jobs.empty()) next_input = start_reading(jobs[0], files);
  std::future<BackendStart> starting = jobs.empty() ? std::future<BackendStart>() : start_backend(kept, spec, run);
  if (starting.valid()) {
    const BackendStart started = starting.get();
    if (!started.unusable.empty()) {
      next_input.wait();  // its thread reads from `jobs`
      throw std::runtime_error(started.unusable);
    }
    if (files.verbose && !started.name.empty())
      std::fprintf(stderr, "edgewise: %s started in %.2f s, while %s was read\n", started.name.c_str(), started.seconds,
                   jobs[0].input.c_str());
  }
  std::future<double> writing;
  size_t writing_job = 0;
  // Waits for the write in flight; false when it failed.
  auto finish_write = [&]() {
    if (!writing.valid()) return true;
    try {
      const double seconds = writing.get();
      if (files.verbose)
        std::fprintf(stderr, "edgewise: %s: written in %.2f s\n", jobs[writing_job].output.c_str(), seconds);
      ++report.written;
      return true;
    } catch (const std::exception& error) {
      std::fprintf(stderr, "edgewise: %s\n", error.what());
      failed.push_back(writing_job);
      return false;
    }
  };
  for (size_t i = 0; i < jobs.size(); ++i) {
    Job& job = jobs[i];
    const std::string count =
        jobs.size() > 1 ? "[" + std::to_string(i + 1) + "/" + std::to_string(jobs.size()) + "] " : "";
    bool ok = true;
    {
      ProgressLine progress(count + file_name_of(job.input), terminal);
      try {
        DecodedImage input = next_input.get();
        if (i + 1 < jobs.size()) next_input = start_reading(jobs[i + 1], files);
        Filtered filtered = filter_job(job, input, spec, run, extra_outputs, files.verbose, progress, denoise);
        progress.finish();
        if (!finish_write() && files.fail_fast) {
          report.stopped = true;
          break;
        }
        writing = start_writing(job, std::move(filtered), files);
        writing_job = i;
      } catch (const std::exception& error) {  // std::runtime_error, edgewise::BackendError, ...
        progress.message(error.what());
        failed.push_back(i);
        ok = false;
        if (i + 1 < jobs.size() && !next_input.valid()) next_input = start_reading(jobs[i + 1], files);
      }
    }
    if (!ok && files.fail_fast && i + 1 < jobs.size()) {
      report.stopped = true;
      break;
    }
  }
  finish_write();
  // A read started for a job that will not run is waited for (its thread
  // must end before the jobs it reads from go away); its result is dropped.
  if (next_input.valid()) next_input.wait();
  std::sort(failed.begin(), failed.end());
  for (size_t index : failed) report.failed.push_back(jobs[index].input);
  return report;
}

std::string summary(const BatchReport& report, size_t jobs) {
  if (report.failed.empty()) return "";
  std::string text = std::to_string(report.failed.size()) + " of " + std::to_string(jobs) + " files failed: ";
  for (size_t i = 0; i < report.failed.size(); ++i) text += (i ? ", " : "") + report.failed[i];
  if (report.stopped) text += "; --fail-fast stopped the rest";
  return text;
}

}  // namespace edgewise_cli
