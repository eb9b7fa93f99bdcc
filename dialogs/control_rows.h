// The dialog's controls as data, made from a filter registry and a backend
// list: what the GTK code builds (param_controls, filter_dialog) and what
// tests check without a display. No front-end file names a filter or a
// parameter; everything here comes from the .def lists' metadata.
#pragma once

#include <string>
#include <vector>

#include "backend.h"
#include "filter_registry.h"
#include "settings.h"

namespace edgewise_dialog {

// One parameter: a list for a choice, else a slider over the usual range
// paired with a spin button over the valid range, as GIMP's scale entries.
struct ControlRow {
  const edgewise::ParamInfo* param = nullptr;
  std::string label;  // with its access key: the parameter's, or a plain name (the Denoise dialog's Smoothness)
  bool choice = false;
  std::vector<std::string> choices;
  double slider_min = 0, slider_max = 0, hard_min = 0, hard_max = 0;
  double step = 1;
  int digits = 0;
  bool automatic = false;   // 0 means auto: an Auto check button stands beside it
  bool noise_auto = false;  // takes auto from the image's noise (kNoiseAuto): an Auto check after its unit
  bool off = false;         // has a value that turns it off: an Off check (never the number itself)
  std::string tooltip;
};

// What a row shows for some settings.
struct RowState {
  bool acts = true;        // it can change the result (else greyed out, `why` in its tooltip)
  std::string why;         // why it cannot: "acts only when Colour mode is lab"
  bool automatic = false;  // at auto (0 = auto, or auto from the noise): the number is what auto gives
  bool off = false;        // at its off value (chosen, or what auto gives)
  double shown = 0;        // the number its spin button shows
};

// `noise`: the image's (may be null: auto values are then not shown);
// `image`: its shape, for what auto values follow (the pyramid's levels).
RowState row_state(const ControlRow& row, const edgewise::Settings& settings, const edgewise::NoiseEstimate* noise,
                   const edgewise::ImageShape& image);

// The row a Denoise control of `filter` gets: its parameter's row, under
// the control's plain name and help.
ControlRow denoise_control_row(const edgewise::FilterInfo& filter, const edgewise::DenoiseControl& control);

// A .def group's rows: the main rows, or a frame of their own.
struct ControlBlock {
  std::string frame;                                 // "" for the main rows
  std::vector<const edgewise::FilterInfo*> filters;  // the filters that take these parameters
  std::vector<ControlRow> rows;
};

struct BackendEntry {
  std::string choice;  // "auto" or a backend's id
  std::string label;   // "Auto", "CPU", "GPU (CUDA)"
  bool usable = true;
  bool fallback = false;    // the CPU, which auto uses when nothing else can
  std::string description;  // the device, or why it is not usable
};

// The line under the backend choice: where a run with that choice ("auto"
// or an id) goes ("Runs on CPU (2 threads)", "Runs on GPU: NVIDIA ..."),
// and why a named backend cannot run. A backend that is not
// usable is mentioned only when it is the one chosen: no driver message on
// every machine without a GPU (auto then runs on the CPU, silently). A
// usable GPU that fails a run says so in the preview's status (the
// engine's notice).
std::string backend_line(const std::vector<BackendEntry>& backends, const std::string& choice);

struct DialogLayout {
  // The Filter choice; empty when the dialog is locked to one filter (GIMP's
  // menu entries) or the registry has only one.
  std::vector<const edgewise::FilterInfo*> filters;
  std::vector<ControlBlock> blocks;  // only those the locked filter uses, when locked
  std::vector<BackendEntry> backends;
};

// `locked`: the one filter the dialog edits, or null for a choice.
// `hidden`: flags of parameters the dialog does not offer (those an older
// PDB procedure does not take: they keep their values).
DialogLayout describe_dialog(const edgewise::Registry& registry, const edgewise::BackendList& backends,
                             const edgewise::FilterInfo* locked, const std::vector<std::string>& hidden = {});

// The short unit shown beside a row for these settings (ΔE in lab mode).
std::string unit_text(const ControlRow& row, const edgewise::Settings& settings);
// A row's value in these settings: the chosen filter's, else the value kept
// for another filter, else the default.
double row_value(const ControlRow& row, const edgewise::Settings& settings);
// Sets a row's value (which the row's range keeps valid).
void set_row_value(const ControlRow& row, double value, edgewise::Settings& settings);

}  // namespace edgewise_dialog
