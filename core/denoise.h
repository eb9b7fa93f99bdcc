// The Denoise front end's core (issue 30): one entry point for a
// photographer, whatever the filter. It picks a method from the image's
// noise (recommend_method), and drives every method the same way: the
// method's automatic parameters follow the noise estimate, so Strength,
// Luminance and Colour act by handing the method a scaled copy of the
// measured estimate (scaled_noise) through RunOptions::noise. Nothing here
// names a filter: the registry rows' DenoiseInfo say what each method is for.
#pragma once

#include <string>
#include <vector>

#include "backend.h"
#include "filter_registry.h"
#include "noise_estimate.h"
#include "params.h"
#include "settings.h"

namespace edgewise {

// Strength, Luminance and Colour (core/denoise_params.def).
const ParamGroup& denoise_group();
// A row holding that group alone, in no registry and never run: a front end
// keeps the three values in a FilterSpec of it, to show and check them as
// it does a filter's (the dialog's rows).
const FilterInfo& denoise_controls();

// The estimate as a method should see it: every channel's noise (sigma,
// noise level function, both readings per bin) times `strength`; the
// opponent luma channel Y times `luminance` too, the chroma channels C1 and
// C2 times `colour`. A colour channel (R, G, B) mixes the three opponent
// parts (core/opponent_color.h: R = Y/sqrt3 + C1/sqrt2 + C2/sqrt6, ...): at
// each of its bins its variance is multiplied by
//   sum_k m_k^2 s_k^2 v_k / sum_k m_k^2 v_k,
// m_k its weights, s_k the opponent parts' multipliers and v_k their
// variances at the bin's intensity (sigma_at). That is exact when the parts
// are independent; the estimate does not measure their covariances, and
// camera noise has some, so it is the model's approximation: it keeps a
// channel as measured at multipliers of 1 and scales it by exactly s when
// luminance and colour are equal, whatever the covariances. Without a
// measured opponent channel the parts count as white (equal variances).
// A grey image's one channel is luminance: strength times luminance.
// Spectra and correlations are kept: the noise changes level, not kind.
NoiseEstimate scaled_noise(const NoiseEstimate& noise, double strength, double luminance, double colour);

// What the estimate says about the noise, in the Denoise front end's terms.
struct NoiseCharacter {
  bool measured = false;  // from flat areas, not the fallback rule
  double luminance = 0;   // the luma channel's sigma (a grey image's one channel), code values
  double colour = 0;      // the chroma channels' root mean square (0 for grey)
  double fine_share = 1;  // the share of the noise's variance that is white (spectrum part 0)
  unsigned kinds = 0;     // NoiseKind bits
  std::string words;      // "colour noise, correlated"
};

// The rule, from the estimate alone:
// - correlated when less than kFineShareBelow of the noise variance (luma
//   and chroma together, weighted by their variances) is white: camera
//   noise after demosaicing and JPEG (0.0-0.4 on bench/quality's camera
//   pipeline), against 1.0 for noise added per pixel;
// - colour when the chroma noise is at least kColourOverLuma times the luma
//   noise: independent noise in R, G and B has them equal, so this is noise
//   mostly in the colours;
// - fine otherwise.
constexpr double kFineShareBelow = 0.5;
constexpr double kColourOverLuma = 1.5;
NoiseCharacter characterise(const NoiseEstimate& noise);

// The filters the Denoise front end offers (a method name), in registry order.
std::vector<const FilterInfo*> denoise_methods(const Registry& registry);

// The method for this noise: among the Denoise methods that suit every kind
// the noise shows (DenoiseInfo::suits), else any kind of it, else all of
// them, the highest rank (the first in registry order on a tie). For an
// estimate from the fallback rule, the highest rank of all. The reason is
// one line: "colour noise, correlated: Multiscale". Null method when the
// registry has no Denoise method.
struct Recommendation {
  const FilterInfo* method = nullptr;
  std::string reason;
  // One more line where the machine matters ("" otherwise): on a GPU, that
  // the best method for the noise is recommended because the GPU makes it
  // quick; on the CPU, which method a GPU would have recommended and how
  // long it would take here (the quick one is recommended so that the
  // preview follows the sliders).
  std::string note;
};
// Where the Denoise front end runs: a usable GPU (the backend choice is auto
// or a GPU, and one is usable) ranks the methods by DenoiseInfo::gpu_rank;
// the image's size and the CPU's threads give a slow method's time.
struct RecommendContext {
  bool gpu = false;
  double megapixels = 0;
  int threads = 1;
};
// Whether `backend` (a settings choice: "auto" or an id) runs on a usable GPU.
bool runs_on_gpu(const std::string& backend, const BackendList& backends = installed_backends());
// The context for an image of `width` x `height` run with `backend`: the GPU
// as runs_on_gpu says, the processor's threads.
RecommendContext recommend_context(const std::string& backend, int width, int height,
                                   const BackendList& backends = installed_backends());
Recommendation recommend_method(const NoiseEstimate& noise, const Registry& registry,
                                const RecommendContext& context = {});

// Whether Luminance and Colour act apart: a method that separates them, on a colour image.
bool splits_luminance_colour(const FilterInfo& method, int colour_channels);

// What a Denoise run is asked for, and what its front ends keep.
struct DenoiseSettings {
  const FilterInfo* method = nullptr;  // null: the one recommended for the image
  double strength = 1, luminance = 1, colour = 1;
  // The method's values (Advanced; every filter's, as a dialog keeps
  // them), the backend and the dialog's state; its filter is the method
  // last shown.
  Settings settings;
};

// Recommended method, multipliers of 1, the first method's defaults.
DenoiseSettings default_denoise(const Registry& registry = builtin_registry());

// Sets strength, luminance or colour, checked against their range: "" or
// the one message ("invalid strength -1: allowed range is 0 to 4 ...").
std::string set_denoise_value(DenoiseSettings& denoise, const std::string& flag, double value);
double denoise_value(const DenoiseSettings& denoise, const std::string& flag);

// The text GIMP keeps as last values: "--denoise-method recommended
// --denoise-strength 1 --denoise-luminance 1 --denoise-colour 1", then the
// settings text (settings.h).
constexpr const char* kDenoisePrefix = "denoise-";
std::string format_denoise(const DenoiseSettings& denoise, const Registry& registry = builtin_registry());
// Reads it leniently, as read_arguments does: a bad value keeps its
// default, with one message per problem.
std::vector<std::string> read_denoise(const std::string& text, DenoiseSettings& denoise,
                                      const Registry& registry = builtin_registry(),
                                      const BackendList& backends = installed_backends());

// The method's number in the Denoise procedure: its index in the registry
// (-1 for the recommended one).
int method_number(const FilterInfo* method, const Registry& registry);
// The method a number stands for (-1: null, the recommended one); "" or the
// message, listing the numbers that are methods.
std::string method_for_number(double number, const Registry& registry, const FilterInfo*& method);
// "-1: the one the noise model recommends for the image; 0: Edge-aware, the
// bilateral filter; ...".
std::string method_numbers_text(const Registry& registry);

// A run, ready for the engine: the method's settings and the estimate it
// follows (RunOptions::noise).
struct DenoiseJob {
  const FilterInfo* method = nullptr;
  Settings settings;
  NoiseEstimate noise;
  std::string reason;  // why this method, when it was recommended; else ""
};
// `measured`: the whole image's estimate; `colour_channels` 1 or 3.
DenoiseJob plan_denoise(const DenoiseSettings& denoise, const NoiseEstimate& measured, int colour_channels,
                        const Registry& registry = builtin_registry(), const RecommendContext& context = {});

}  // namespace edgewise
