// edgewise: the command line. Arguments and files here; filtering in core/.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "atomic_file.h"
#include "engine.h"
#include "image_file.h"
#include "options.h"

namespace {

using namespace edgewise_cli;

bool is_directory(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

edgewise::ImageBuffer view(DecodedImage& image) {
  return {image.bytes.data(), {image.width, image.height, image.channels},
          image.bits == 16 ? edgewise::SampleType::u16 : edgewise::SampleType::u8, image.row_bytes()};
}

struct Job {
  std::string input, output;
  FileFormat format;
};

// A progress line on stderr for jobs that take a while: updated in place,
// at most every 100 ms, and only after the first half second.
class ProgressLine {
 public:
  explicit ProgressLine(std::string label) : label_(std::move(label)), start_(clock::now()) {}
  ~ProgressLine() {
    if (shown_) std::fprintf(stderr, "\r%s: done%20s\n", label_.c_str(), "");
  }
  bool update(double fraction) {
    const auto now = clock::now();
    if (now - start_ < std::chrono::milliseconds(500) || now - last_ < std::chrono::milliseconds(100)) return true;
    last_ = now;
    shown_ = true;
    std::fprintf(stderr, "\r%s: %3d%%", label_.c_str(), int(fraction * 100.0));
    return true;
  }

 private:
  using clock = std::chrono::steady_clock;
  std::string label_;
  clock::time_point start_, last_{};
  bool shown_ = false;
};

int run(int argc, char** argv) {
  CliOptions options;
  try {
    options = parse_options(argc, argv);
    if (options.help) {
      std::fputs(help_text().c_str(), stdout);
      return 0;
    }
    if (options.version) {
      std::puts("edgewise 0.1.0");
      return 0;
    }
    if (options.inputs.empty()) throw std::invalid_argument("no input file (see edgewise --help)");
    if (options.output.empty()) throw std::invalid_argument("no output given: use -o OUTPUT");
    const std::string error = edgewise::validate(options.spec);
    if (!error.empty()) throw std::invalid_argument(error);
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "edgewise: %s\n", error.what());
    return 2;
  }

  try {
    // Decide every output path and format before touching any file.
    std::vector<Job> jobs;
    const bool to_directory = options.inputs.size() > 1 || is_directory(options.output);
    if (options.inputs.size() > 1 && !is_directory(options.output))
      throw std::runtime_error("several inputs need an existing output directory, not " + options.output);
    for (const auto& input : options.inputs) {
      Job job{input, to_directory ? options.output + "/" + base_name(input) : options.output, FileFormat::png};
      job.format = to_directory ? detect_format(input) : format_for_output(job.output);
      jobs.push_back(job);
    }
    // Read and filter everything first, then write: a bad input anywhere
    // means no output at all.
    std::vector<DecodedImage> results;
    for (const auto& job : jobs) {
      detect_format(job.input);
      DecodedImage image = read_image(job.input);
      check_writable(job.format, image, job.output);
      DecodedImage result = image;
      ProgressLine progress(base_name(job.input));
      edgewise::RunOptions run = options.run;
      run.progress = [&progress](double fraction) { return progress.update(fraction); };
      run.notice = [](const std::string& message) { std::fprintf(stderr, "edgewise: %s\n", message.c_str()); };
      edgewise::run_filter(options.spec, view(image), view(result), run);
      results.push_back(std::move(result));
    }
    for (size_t i = 0; i < jobs.size(); ++i)
      write_atomically(jobs[i].output, [&](const std::string& temp) { write_image(temp, jobs[i].format, results[i]); });
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "edgewise: %s\n", error.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
