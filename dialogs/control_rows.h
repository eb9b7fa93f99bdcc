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
  bool choice = false;
  std::vector<std::string> choices;
  double slider_min = 0, slider_max = 0, hard_min = 0, hard_max = 0;
  double step = 1;
  int digits = 0;
  bool automatic = false;   // 0 means auto: an Auto check button stands beside it
  bool noise_auto = false;  // takes auto from the image's noise (kNoiseAuto): an Auto check after its unit
  std::string tooltip;
};

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
