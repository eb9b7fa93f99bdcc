// A run of the CLI as a list of jobs (one per input), checked as a whole
// before any output is written, then carried out one at a time.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine.h"
#include "image_file.h"

namespace edgewise_cli {

// How a run treats its files (the CLI's file options).
struct JobOptions {
  ReadLimits limits;
  WriteOptions write;
  bool overwrite = false;  // an output may replace an input file
  bool fail_fast = false;  // stop at the first failed file
};

struct Job {
  std::string input;
  std::string output;
  FileFormat format = FileFormat::png;
  DecodedImage image;  // the decoded input when kept from checking, else empty
};

// The engine's view of a decoded image (no copy).
edgewise::ImageBuffer view(DecodedImage& image);

// Decides every output path and format and checks all that can be checked
// without filtering: each input decodes completely, the output format can
// hold it, each output directory accepts new files, and no two inputs share
// an output. Several inputs need output to be an existing directory; one
// input may name a file or a directory. Throws std::runtime_error naming
// the first problem.
std::vector<Job> plan_jobs(const std::vector<std::string>& inputs, const std::string& output,
                           const JobOptions& options = {});

// Filters and writes each job in turn; every output appears whole or not at
// all. Progress and notices go to stderr.
// extra_outputs (output name -> file) are the filter's extra images for
// the (single) job, made in the same run and written after the result as
// 16-bit images, each whole or not at all.
void run_jobs(std::vector<Job>& jobs, const edgewise::FilterSpec& spec, const edgewise::RunOptions& options,
              const std::map<std::string, std::string>& extra_outputs = {}, const JobOptions& files = {});

}  // namespace edgewise_cli
