// The filter registry: one row per filter saying everything a front end or
// the executor needs (its name, PDB procedure, menu entry, parameters,
// reach, preview scaling, extra outputs and planner). The CLI, the GIMP
// plug-in and the dialog are generated from a Registry and never name a
// filter; tests run them on a registry of made-up filters.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "filter_spec.h"
#include "noise_estimate.h"
#include "params.h"
#include "plan.h"

namespace edgewise {

// A second image a filter can write besides its result (the CLI offers it
// as --write-NAME FILE).
struct FilterOutputInfo {
  const char* name = "";  // "sigma"
  const char* help = "";  // what the image holds, for --help
  // Channels of the image for this spec and input (1 grey, 3 RGB).
  int (*channels)(const FilterSpec& spec, const ImageShape& shape) = nullptr;
};

// The kinds of noise the Denoise front end tells apart (recommend_method in
// denoise.h), as bits of DenoiseInfo::suits.
enum NoiseKind : unsigned {
  kFineNoise = 1u,        // white-ish: each pixel's noise on its own (grain of a pixel)
  kCorrelatedNoise = 2u,  // spread over neighbouring pixels: demosaicing, JPEG, resizing (coarse grain)
  kColourNoise = 4u,      // mostly in the colours (speckles, blotches) rather than in brightness
};

// A parameter the Denoise front end shows among its photographer controls,
// beside Strength, under a plain name (its other parameters go under
// Advanced).
struct DenoiseControl {
  const char* flag = "";   // a parameter of the filter
  const char* label = "";  // "S_moothness", with its access key
  const char* help = "";   // what it does to a photo
};

// What the Denoise front end (Filters > Enhance > Denoise) says about a
// filter, and when it recommends it. A filter without a method name is not
// offered there; its own procedure and menu entry remain.
struct DenoiseInfo {
  const char* method = "";    // the plain name: "Multiscale"
  const char* good_for = "";  // one line: what it is good for, and how fast
  // Its automatic parameters read the luminance and the colour noise apart
  // (NoiseEstimate::opponent), so the Luminance and Colour controls act
  // apart; otherwise Strength alone is offered.
  bool separates = false;
  unsigned suits = 0;  // the NoiseKind bits it is recommended for
  int rank = 0;        // among the methods that suit the noise, the highest is recommended
  // Its rank where the Denoise front end runs on a usable GPU, which makes
  // the slow methods quick (recommend_method's RecommendContext); 0: `rank`.
  int gpu_rank = 0;
  // Processor-seconds a megapixel takes on the CPU (bench/RESULTS.md), for
  // saying what the better, slower method would cost where no GPU runs it;
  // 0 for the quick methods.
  double cpu_seconds_per_megapixel = 0;
  std::vector<DenoiseControl> controls;
};

struct FilterInfo {
  const char* name = "";           // --filter NAME, the settings text, the dialog's filter list
  const char* title = "";          // "Edgewise Bilateral": the dialog's title, the progress text
  const char* summary = "";        // a phrase for help texts: "the exact bilateral filter"
  const char* pdb_procedure = "";  // "plug-in-edgewise-bilateral"
  const char* pdb_blurb = "";      // one line for the procedure browser
  const char* menu_label = "";     // "Edgewise _Bilateral..." under Filters > Enhance
  // Its parameters, group by group. The PDB procedure takes run-mode, image,
  // drawable, the first group's parameters, the backend, then the other
  // groups' (the layout plug-in-edgewise-adaptive was published with).
  std::vector<const ParamGroup*> groups;
  std::vector<FilterOutputInfo> outputs;

  // Rows and columns an output pixel's value depends on around it: filtering
  // a region grown by this much gives its inner part exactly as filtering
  // the whole image does.
  int (*reach)(const FilterSpec& spec) = nullptr;
  // What a parameter whose 0 means "auto" (ParamInfo::auto_meaning) stands for.
  double (*auto_value)(const FilterSpec& spec, const ParamInfo& param) = nullptr;
  // The value a parameter at auto (kNoiseAuto, ParamInfo::noise_auto) takes
  // for an image whose noise is `noise`: the filter's rule, fitted with
  // bench/quality (docs/quality.md). Needed when any parameter takes auto;
  // the result is kept within the parameter's range.
  double (*noise_value)(const FilterSpec& spec, const ParamInfo& param, const NoiseEstimate& noise) = nullptr;
  // Constraints between values (each value alone is checked by its range):
  // "" when fine, else one message. May be null.
  std::string (*check)(const FilterSpec& spec) = nullptr;
  // The spec the dialog's preview runs when it filters the image scaled by
  // `scale` < 1. May be null: then every PreviewScaling::length parameter
  // is scaled (scale_lengths).
  FilterSpec (*at_preview_scale)(const FilterSpec& spec, double scale) = nullptr;
  // Filtering part of an image alone (a GEGL tile; core/region.h) gives
  // that part exactly as filtering the whole image does when the part read
  // is grown by `reach`, starts on this grid (pixels from the image's
  // origin: a pyramid's levels halve from the origin of what it filters,
  // the Fourier filter's cells start there) and is planned with the spec
  // for_image returns. Null: any origin (a grid of 1).
  int (*region_grid)(const FilterSpec& spec) = nullptr;
  // The spec with what its planner would derive from the image's size fixed
  // for `image` (the pyramid's automatic levels), so that a region is
  // planned as the whole image is. Null: the spec as it is.
  FilterSpec (*for_image)(const FilterSpec& spec, const ImageShape& image) = nullptr;
  // Non-empty when its parameters at auto follow more of the noise estimate
  // than the one value each that noise_value gives (the noise per pixel,
  // channel or scale: PlanRequest::noise): what they follow. A run at auto
  // is then not the run at resolve_noise's values; test_auto_params holds
  // every row to what it says here, either way.
  const char* auto_follows = "";
  // The spec its typed parameter structs write when default-constructed
  // (its X_spec(XParameters{}), param_io.h): test_filter_spec holds it to
  // every table's default, so that the structs, their generated reader and
  // writer and the tables agree. Every row of the built-in registry has one.
  FilterSpec (*typed_defaults)() = nullptr;
  // Throws std::invalid_argument for a spec or shape it cannot plan.
  std::unique_ptr<Plan> (*plan)(const FilterSpec& spec, const ImageShape& shape, const PlanRequest& request) = nullptr;
  // How the Denoise front end offers it (not at all without a method name).
  DenoiseInfo denoise;

  std::vector<const ParamInfo*> params() const;
  const ParamInfo* find_param(const std::string& flag) const;
  const FilterOutputInfo* find_output(const std::string& name) const;
};

class Registry {
 public:
  // The first filter is the default one.
  explicit Registry(std::vector<const FilterInfo*> filters);
  const std::vector<const FilterInfo*>& filters() const { return filters_; }
  const FilterInfo& default_filter() const { return *filters_.front(); }
  const FilterInfo* find(const std::string& name) const;
  // Every group of every filter once, in registry order, and the filters using it.
  std::vector<const ParamGroup*> groups() const;
  std::vector<const FilterInfo*> users(const ParamGroup& group) const;
  // A parameter of any filter by its flag (a flag means one thing in a registry).
  const ParamInfo* find_param(const std::string& flag) const;
  // Every extra output of any filter, once by name.
  std::vector<const FilterOutputInfo*> outputs() const;
  std::vector<const FilterInfo*> producers(const std::string& output) const;

 private:
  std::vector<const FilterInfo*> filters_;
};

// The filters this build of Edgewise offers (core/filters/registry.cpp).
const Registry& builtin_registry();

// The usual preview scaling: length parameters times `scale`, kept within
// their range; an automatic 0 stays automatic.
FilterSpec scale_lengths(const FilterSpec& spec, double scale);
// The spec the preview runs at `scale` (the filter's own rule, or scale_lengths); unchanged at 1.
FilterSpec spec_at_scale(const FilterSpec& spec, double scale);
int filter_reach(const FilterSpec& spec);
// The value an automatic parameter stands for, or the value itself.
double effective_value(const FilterSpec& spec, const ParamInfo& param);
// Whether any parameter of the spec is auto (kNoiseAuto): it needs the
// image's noise estimate before it can be planned.
bool needs_noise(const FilterSpec& spec);
// The noise sigma the auto rules start from: the estimate's median over
// channels in code values, at least kNoiseFloor, so that a clean image (or
// one too small to measure) is filtered lightly rather than not at all. In
// lab mode the same noise as a Delta E: kLabPerCode Delta E per code value,
// the ratio of the best lab and rgb sigma-r in bench/quality's grid.
constexpr double kNoiseFloor = 0.5;
constexpr double kLabPerCode = 0.52;
double auto_noise_sigma(const NoiseEstimate& noise);
double auto_noise_sigma(const FilterSpec& spec, const NoiseEstimate& noise);
// The flags of the spec's parameters at auto (kNoiseAuto).
std::vector<std::string> noise_auto_flags(const FilterSpec& spec);
// The spec with every auto value set by the filter's rule for `noise`.
FilterSpec resolve_noise(const FilterSpec& spec, const NoiseEstimate& noise);
// "sigma-r 14.2": the values resolve_noise chose, for messages and logs ("" when none).
std::string resolved_text(const FilterSpec& spec, const FilterSpec& resolved);

// The short unit a dialog shows beside the parameter for this spec (the
// lab unit when the spec's colour mode is lab).
const char* short_unit(const FilterSpec& spec, const ParamInfo& param);

// Plans `spec` for an image: validates the spec (std::invalid_argument with
// validate()'s message) and the shape, then runs the filter's planner.
std::unique_ptr<Plan> make_plan(const FilterSpec& spec, const ImageShape& shape, const PlanRequest& request = {});

}  // namespace edgewise
