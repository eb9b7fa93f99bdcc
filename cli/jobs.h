// A run of the CLI as a list of jobs, one per input. The command is
// checked as a whole before any file is read beyond its first bytes; then
// each job reads, filters and writes its file, and a file that fails does
// not stop the others (unless --fail-fast).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "denoise.h"
#include "engine.h"
#include "image_file.h"

namespace edgewise_cli {

// How a run treats its files (the CLI's file options).
struct JobOptions {
  ReadLimits limits;
  WriteOptions write;
  bool overwrite = false;  // an output may replace its own input file
  bool fail_fast = false;  // stop at the first failed file
  bool verbose = false;    // --verbose: each file's auto values, on its line
};

struct Job {
  std::string input;
  std::string output;
  FileFormat format = FileFormat::png;
  DecodedImage image;       // the decoded input once read (the dialog reads it first)
  double read_seconds = 0;  // decoding the input, for --verbose
};

// The engine's view of a decoded image (no copy).
edgewise::ImageBuffer view(DecodedImage& image);

// Decides every output path and format and checks what can be checked
// without decoding: each input exists and is a PNG, JPEG or TIFF file by
// its first bytes; no output (extra outputs included) is an input or
// another output, unless --overwrite lets a result replace its own input;
// output names fit the file system with room for the temporary name; each
// output directory accepts new files. Several inputs need output to be an
// existing directory; one input may name a file or a directory. Throws
// std::runtime_error naming the first problem; nothing has been written.
std::vector<Job> plan_jobs(const std::vector<std::string>& inputs, const std::string& output,
                           const JobOptions& options = {},
                           const std::map<std::string, std::string>& extra_outputs = {});

struct BatchReport {
  int written = 0;
  std::vector<std::string> failed;  // the inputs whose job failed, in order
  bool stopped = false;             // --fail-fast ended the batch early
};

// Runs the jobs in turn; every output appears whole or not at all. A job
// that fails is reported on stderr and the next one runs (or, with
// fail_fast, none). Progress and notices go to stderr. extra_outputs
// (output name -> file) are the filter's extra images for the (single)
// job, made in the same run and written after the result as 16-bit images.
// With `denoise` (--filter auto), each job instead measures its image's
// noise and runs the method and scaled noise plan_denoise gives for it
// (core/denoise.h, as GIMP's Denoise entry does); `spec` then only starts
// the backend.
BatchReport run_jobs(std::vector<Job>& jobs, const edgewise::FilterSpec& spec, const edgewise::RunOptions& options,
                     const std::map<std::string, std::string>& extra_outputs = {}, const JobOptions& files = {},
                     const edgewise::DenoiseSettings* denoise = nullptr);

// "2 of 5 files failed: a.png, b.png" for stderr, or "" when none did.
std::string summary(const BatchReport& report, size_t jobs);

}  // namespace edgewise_cli
