#include "engine.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

namespace edgewise {

namespace {

// Runs the job on the chosen backend, and in auto mode on each usable
// backend in list order until one succeeds, the fallback last.
RunReport run_with_fallback(const Plan& plan, const RunOptions& options, const std::function<void(Backend&)>& job) {
  const BackendList& list = options.backends ? *options.backends : installed_backends();
  const std::string error = check_backend_choice(list, options.backend);
  if (!error.empty()) throw std::invalid_argument(error);
  RunReport report;
  auto run_on = [&](Backend& backend) {
    if (options.observer) options.observer->backend_used(backend.name());
    job(backend);
    report.backend = backend.name();
  };
  // The provider's backend, kept (options.kept) or made for this run
  // (held by `owned`).
  auto backend_of = [&](const BackendProvider& provider, std::unique_ptr<Backend>& owned) -> Backend& {
    if (options.kept) return options.kept->get(provider, options.backend_options);
    owned = provider.make(options.backend_options);
    return *owned;
  };
  auto forget = [&](const BackendProvider& provider) {
    if (options.kept) options.kept->drop(provider);
  };

  if (options.backend != "auto") {
    const BackendProvider& provider = *find_backend(list, options.backend);
    std::string why_not;
    if (!provider.usable(why_not))
      throw BackendError(provider.name() + " backend requested but unavailable: " + why_not);
    std::unique_ptr<Backend> owned;
    Backend& backend = backend_of(provider, owned);
    const std::string unsupported = backend.unsupported(plan);
    if (!unsupported.empty()) throw BackendError(provider.name() + " backend cannot run this job: " + unsupported);
    try {
      run_on(backend);
    } catch (const BackendError&) {
      forget(provider);
      throw;
    }
    return report;
  }

  const BackendProvider* fallback = nullptr;
  for (const auto& provider : list)
    if (provider->is_fallback()) fallback = provider.get();
  if (!fallback) throw BackendError("no backend to fall back on in the backend list");
  for (const auto& provider : list) {
    if (provider.get() == fallback) continue;
    std::string why_not;
    if (!provider->usable(why_not)) continue;  // no device is not worth a message
    std::unique_ptr<Backend> owned;
    Backend* backend = nullptr;
    try {
      backend = &backend_of(*provider, owned);
    } catch (const BackendError& error) {
      report.fallback_reason = error.what();
      continue;
    }
    const std::string unsupported = backend->unsupported(plan);
    if (!unsupported.empty()) {
      if (options.notice) options.notice(unsupported + "; using the " + fallback->name());
      continue;
    }
    try {
      run_on(*backend);
      return report;
    } catch (const BackendError& error) {
      // Every row is written again below, so nothing half-done survives.
      forget(*provider);
      report.fallback_reason = error.what();
      if (options.notice)
        options.notice(provider->name() + " failed (" + error.what() + "); rerunning on the " + fallback->name());
    }
  }
  std::unique_ptr<Backend> owned;
  run_on(backend_of(*fallback, owned));
  return report;
}

ExecuteOptions execute_options(const RunOptions& options) {
  ExecuteOptions execute;
  execute.band_rows = options.band_rows;
  execute.progress = options.progress;
  execute.observer = options.observer;
  return execute;
}

bool overlap(const ImageBuffer& a, const ImageBuffer& b) {
  const auto* a0 = static_cast<const unsigned char*>(a.data);
  const auto* b0 = static_cast<const unsigned char*>(b.data);
  const auto* a1 = a0 + a.stride() * size_t(a.shape.height);
  const auto* b1 = b0 + b.stride() * size_t(b.shape.height);
  return a0 < b1 && b0 < a1;
}

// The largest change of any sample from in (or its copy, for a run in
// place) to out, in code values of the 8-bit scale.
double largest_change(const ImageBuffer& in, const ImageBuffer& out, const std::vector<unsigned char>& in_copy) {
  ImageBuffer before = in;
  if (!in_copy.empty()) before.data = const_cast<unsigned char*>(in_copy.data());
  BufferSource from(before), to(out);
  const size_t row = size_t(in.shape.width) * size_t(in.shape.channels);
  std::vector<float> a(row), b(row);
  double largest = 0;
  for (int y = 0; y < in.shape.height; ++y) {
    from.read_rows(y, 1, a.data());
    to.read_rows(y, 1, b.data());
    for (size_t i = 0; i < row; ++i) largest = std::max(largest, double(std::abs(a[i] - b[i])));
  }
  return largest * 255.0;
}

// A spec with its auto parameters set from the image's noise, and what the
// planner may take from that noise (PlanRequest::noise).
struct Resolved {
  FilterSpec spec;
  NoiseEstimate noise;
  std::vector<std::string> auto_flags;
  void fill(PlanRequest& request) const {
    if (auto_flags.empty()) return;
    request.noise = &noise;
    request.noise_auto_flags = auto_flags;
  }
};

// The spec with its auto parameters set from the image's noise (the given
// estimate, or one `estimate` makes), noted in the report.
template <typename Estimate>
Resolved with_noise(const FilterSpec& spec, const RunOptions& options, RunReport& report, Estimate estimate) {
  throw_if_error(validate(spec));
  if (!needs_noise(spec)) return {spec, {}, {}};
  Resolved resolved{spec, options.noise ? *options.noise : estimate(), noise_auto_flags(spec)};
  resolved.spec = resolve_noise(spec, resolved.noise);
  report.noise_sigma = auto_noise_sigma(resolved.noise);
  report.auto_values = resolved_text(spec, resolved.spec);
  report.noise_reading = noise_reading_name(resolved.noise.reading);
  report.noise_reading_note = resolved.noise.reading_note;
  if (!report.noise_reading_note.empty() && options.notice) options.notice(report.noise_reading_note);
  if (resolved.noise.fallback) {
    report.noise_fallback = resolved.noise.fallback_reason;
    if (options.notice) options.notice(noise_fallback_notice(report));
  }
  return resolved;
}

// The report's auto values, with what the planner chose from the noise,
// and its line for the user.
void note_plan_choices(RunReport& report, const Plan& plan, const RunOptions& options) {
  if (!plan.auto_choices.empty()) report.auto_values += (report.auto_values.empty() ? "" : ", ") + plan.auto_choices;
  if (!plan.notice.empty() && options.notice) options.notice(plan.notice);
}

}  // namespace

RunReport run_filter(const FilterSpec& spec, const ImageShape& shape, PixelSource& source, PixelSink& sink,
                     const RunOptions& options) {
  RunReport noted;
  const Resolved resolved = with_noise(spec, options, noted, [&] { return estimate_noise(source, shape); });
  PlanRequest request;
  resolved.fill(request);
  const std::unique_ptr<Plan> plan = make_plan(resolved.spec, shape, request);
  note_plan_choices(noted, *plan, options);
  RunReport report = run_with_fallback(*plan, options, [&](Backend& backend) {
    StreamInput input(source, shape);
    StreamOutput output(sink, shape);
    execute(*plan, backend, input, output, {}, execute_options(options));
  });
  report.noise_sigma = noted.noise_sigma;
  report.auto_values = noted.auto_values;
  report.noise_fallback = noted.noise_fallback;
  report.noise_reading = noted.noise_reading;
  report.noise_reading_note = noted.noise_reading_note;
  return report;
}

RunReport run_filter(const FilterSpec& spec, const ImageBuffer& in, const ImageBuffer& out, const RunOptions& options,
                     const std::vector<ExtraImage>& extras) {
  if (in.shape.width != out.shape.width || in.shape.height != out.shape.height ||
      in.shape.channels != out.shape.channels)
    throw std::invalid_argument("input and output images differ in size or channels");
  RunReport noted;
  const Resolved resolved = with_noise(spec, options, noted, [&] { return estimate_noise(in); });
  PlanRequest request;
  resolved.fill(request);
  for (const ExtraImage& extra : extras) {
    request.extra_outputs.push_back(extra.name);
    const ImageShape expected = output_shape(spec, in.shape, extra.name);
    if (extra.buffer.shape.width != expected.width || extra.buffer.shape.height != expected.height ||
        extra.buffer.shape.channels != expected.channels || extra.buffer.type != SampleType::f32)
      throw std::invalid_argument("the " + extra.name + " output needs a float image of " +
                                  std::to_string(expected.channels) + " channels the input's size");
  }
  const std::unique_ptr<Plan> plan = make_plan(resolved.spec, in.shape, request);
  note_plan_choices(noted, *plan, options);
  // A run in place at auto keeps the input to measure the change against.
  std::vector<unsigned char> in_copy;
  if (!resolved.auto_flags.empty() && overlap(in, out)) {
    const auto* first = static_cast<const unsigned char*>(in.data);
    in_copy.assign(first, first + in.stride() * size_t(in.shape.height));
  }
  RunReport report = run_with_fallback(*plan, options, [&](Backend& backend) {
    const bool in_place = overlap(in, out);
    BufferInput input(in, in_place);
    BufferOutput output(out, in_place);
    std::vector<BufferOutput> extra_outputs;
    for (const ExtraImage& extra : extras) extra_outputs.emplace_back(extra.buffer, false);
    std::vector<RowOutput*> extra_pointers;
    for (BufferOutput& extra : extra_outputs) extra_pointers.push_back(&extra);
    execute(*plan, backend, input, output, extra_pointers, execute_options(options));
  });
  report.noise_sigma = noted.noise_sigma;
  report.auto_values = noted.auto_values;
  report.noise_fallback = noted.noise_fallback;
  report.noise_reading = noted.noise_reading;
  report.noise_reading_note = noted.noise_reading_note;
  if (!report.auto_values.empty()) report.largest_change = largest_change(in, out, in_copy);
  return report;
}

std::string noise_fallback_notice(const RunReport& report) {
  if (report.noise_fallback.empty()) return "";
  char sigma[32];
  std::snprintf(sigma, sizeof sigma, "%.2f", report.noise_sigma);
  return "the noise could not be measured: " + report.noise_fallback + "; auto took noise " + sigma +
         " code values from " + kNoiseFallbackRule + ": " + report.auto_values;
}

std::string unchanged_notice(const RunReport& report) {
  if (report.auto_values.empty() || report.largest_change < 0 || report.largest_change > 1.0) return "";
  char sigma[32];
  std::snprintf(sigma, sizeof sigma, "%.2f", report.noise_sigma);
  return std::string("auto changed no pixel by more than one code value (noise ") + sigma + " code values; " +
         report.auto_values + "): the image shows little noise; give the strength by hand to filter more";
}

ImageShape output_shape(const FilterSpec& spec, const ImageShape& input, const std::string& output) {
  const FilterOutputInfo* info = spec.filter().find_output(output);
  if (!info)
    throw std::invalid_argument("the " + std::string(spec.filter().name) + " filter has no " + output + " output");
  return {input.width, input.height, info->channels(spec, input)};
}

}  // namespace edgewise
