// The front ends' generators run on a registry holding a made-up filter
// (tests/registry/smudge_filter.h) that no front-end file names: it gets its
// PDB arguments, its dialog controls and its settings text from its registry
// row alone, and it runs through the real executor. The CLI's options and
// help are tested the same way in tests/cli/test_cli_registry.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "control_rows.h"
#include "dialog_help.h"
#include "engine.h"
#include "gimp_theme.h"
#include "pdb_layout.h"
#include "registry/smudge_filter.h"
#include "settings.h"
#include "test_support.h"

namespace edgewise_test {
namespace {

using edgewise::FilterInfo;
using edgewise::ParamInfo;
using edgewise::Settings;

edgewise::FilterSpec with_space(edgewise::FilterSpec spec, const std::string& space) {
  EXPECT_EQ(edgewise::set_param(spec, "working-space", space), "");
  return spec;
}

std::vector<std::string> names(const std::vector<edgewise_plugin::PdbArgument>& arguments) {
  std::vector<std::string> list;
  for (const auto& argument : arguments) list.push_back(argument.name);
  return list;
}

TEST(Registry, RowsGroupsAndUsers) {
  const edgewise::Registry& registry = smudge_registry();
  EXPECT_EQ(&registry.default_filter(), &smudge_filter());
  EXPECT_EQ(registry.find("smudge"), &smudge_filter());
  EXPECT_EQ(registry.find("adaptive"), nullptr);
  ASSERT_EQ(registry.groups().size(), 2u);
  EXPECT_EQ(std::string(registry.groups()[0]->name), "smudge");
  EXPECT_EQ(registry.users(*registry.groups()[1]).size(), 2u);  // the bilateral group: both filters
  EXPECT_EQ(registry.find_param("strength"), smudge_filter().find_param("strength"));
  EXPECT_EQ(registry.find_param("sigma-s"), edgewise::bilateral_filter().find_param("sigma-s"));
  ASSERT_EQ(registry.outputs().size(), 1u);
  EXPECT_EQ(std::string(registry.outputs()[0]->name), "mask");
  // The .def list's choice spellings and its typed struct's defaults.
  const ParamInfo* shape = smudge_filter().find_param("shape");
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->tokens, (std::vector<std::string>{"round", "square", "soft-edge"}));
  const SmudgeParameters defaults = smudge_parameters(edgewise::FilterSpec(smudge_filter()));
  EXPECT_EQ(defaults.shape, SmudgeShape::round);
  EXPECT_FLOAT_EQ(defaults.strength, 0.5f);
  EXPECT_EQ(defaults.reach_px, 0);
}

TEST(Registry, AFlagDeclaredTwiceIsRefused) {
  edgewise::FilterInfo copy = smudge_filter();
  copy.name = "copy";
  static const edgewise::ParamGroup clash = edgewise::ParamGroupBuilder()
                                                .group("clash", "", "", "")
                                                .real("strength", "strength", "_Strength", 1.0)
                                                .range(0, 2)
                                                .slider(0, 2)
                                                .help("the same flag again")
                                                .build();
  copy.groups = {&clash};
  EXPECT_THROW(edgewise::Registry({&smudge_filter(), &copy}), std::logic_error);
}

TEST(Generators, PdbArgumentsFromTheRow) {
  const auto arguments = edgewise_plugin::pdb_arguments(smudge_filter(), edgewise::installed_backends());
  // Its own group, the backend, then the bilateral group; tint is not a PDB argument.
  EXPECT_EQ(names(arguments),
            (std::vector<std::string>{"run-mode", "image", "drawable", "strength", "shape", "reach", "backend", "mode",
                                      "sigma-s", "radius", "sigma-r", "kernel", "iterations"}));
  EXPECT_EQ(arguments[3].type, edgewise_plugin::PdbType::real);
  EXPECT_EQ(arguments[4].type, edgewise_plugin::PdbType::int32);
  EXPECT_NE(arguments[4].description.find("{0 round, 1 square, 2 soft-edge}"), std::string::npos)
      << arguments[4].description;
  // Units after the numbers, notes in parentheses (one formatter, ParamInfo::range_text).
  EXPECT_NE(arguments[5].description.find("0 to 50 px (an integer; 0 = auto: 4 px), default 0"), std::string::npos)
      << arguments[5].description;
  EXPECT_NE(arguments[6].description.find("0 auto, 1 cpu, 2 cuda"), std::string::npos) << arguments[6].description;
  const std::string help = edgewise_plugin::pdb_help(smudge_filter(), edgewise::installed_backends());
  EXPECT_NE(help.find("a made-up filter"), std::string::npos);
  EXPECT_NE(help.find("Strength: how much the smudge scales the range sigma"), std::string::npos) << help;

  Settings settings;
  // strength shape reach backend mode sigma-s radius sigma-r kernel iterations
  const std::vector<double> call = {0.25, 2, 7, 1, 2, 1.5, 0, 12, 1, 2};
  ASSERT_EQ(edgewise_plugin::read_call(smudge_filter(), edgewise::installed_backends(), call, settings), "");
  EXPECT_EQ(&settings.spec.filter(), &smudge_filter());
  EXPECT_EQ(settings.backend, "cpu");
  EXPECT_EQ(settings.spec.get("strength"), 0.25);
  EXPECT_EQ(smudge_parameters(settings.spec).shape, SmudgeShape::soft_edge);
  EXPECT_EQ(settings.spec.get("reach"), 7);
  EXPECT_EQ(settings.spec.get("iterations"), 2);
  std::vector<double> bad = call;
  bad[0] = 1.5;
  EXPECT_NE(edgewise_plugin::read_call(smudge_filter(), edgewise::installed_backends(), bad, settings)
                .find("invalid strength 1.5: allowed range is 0 to 1"),
            std::string::npos);
  bad = call;
  bad[3] = 7;
  EXPECT_NE(edgewise_plugin::read_call(smudge_filter(), edgewise::installed_backends(), bad, settings)
                .find("invalid backend 7"),
            std::string::npos);
  bad.pop_back();
  EXPECT_NE(edgewise_plugin::read_call(smudge_filter(), edgewise::installed_backends(), bad, settings)
                .find("expected 13 arguments, got 12"),
            std::string::npos);
}

// The published procedures keep their argument lists.
TEST(Generators, BuiltInProceduresKeepTheirArguments) {
  EXPECT_EQ(names(edgewise_plugin::pdb_arguments(edgewise::bilateral_filter(), edgewise::installed_backends())),
            (std::vector<std::string>{"run-mode", "image", "drawable", "mode", "sigma-s", "radius", "sigma-r", "kernel",
                                      "iterations", "backend"}));
  EXPECT_EQ(names(edgewise_plugin::pdb_arguments(edgewise::adaptive_filter(), edgewise::installed_backends())),
            (std::vector<std::string>{"run-mode", "image", "drawable", "mode", "sigma-s", "radius", "sigma-r", "kernel",
                                      "iterations", "backend", "adapt-k", "adapt-eps", "adapt-min", "adapt-max"}));
}

TEST(Generators, DialogControlsFromTheRow) {
  const edgewise_dialog::DialogLayout layout =
      edgewise_dialog::describe_dialog(smudge_registry(), edgewise::installed_backends(), nullptr);
  ASSERT_EQ(layout.filters.size(), 2u);
  EXPECT_EQ(layout.filters[0], &smudge_filter());
  ASSERT_EQ(layout.blocks.size(), 2u);
  const edgewise_dialog::ControlBlock& own = layout.blocks[0];
  EXPECT_EQ(own.frame, "Smudge (made up)");
  ASSERT_EQ(own.filters.size(), 1u);
  ASSERT_EQ(own.rows.size(), 4u);  // the dialog offers tint, which the PDB does not take
  EXPECT_FALSE(own.rows[0].choice);
  EXPECT_EQ(own.rows[0].slider_max, 1.0);
  EXPECT_TRUE(own.rows[1].choice);
  EXPECT_EQ(own.rows[1].choices, (std::vector<std::string>{"round", "square", "soft-edge"}));
  EXPECT_TRUE(own.rows[2].automatic);
  EXPECT_EQ(own.rows[2].digits, 0);
  EXPECT_NE(own.rows[2].tooltip.find("Allowed: 0 to 50 px (an integer; 0 = auto: 4 px)"), std::string::npos)
      << own.rows[2].tooltip;
  EXPECT_EQ(std::string(own.rows[3].param->cli_flag), "tint");
  EXPECT_EQ(layout.blocks[1].frame, "");  // the bilateral group: the main rows
  EXPECT_EQ(layout.backends.front().choice, "auto");
  EXPECT_EQ(layout.backends.size(), edgewise::installed_backends().size() + 1);

  // Locked to one filter (a GIMP menu entry): no choice, only its blocks.
  const auto locked = edgewise_dialog::describe_dialog(smudge_registry(), edgewise::installed_backends(),
                                                       &edgewise::bilateral_filter());
  EXPECT_TRUE(locked.filters.empty());
  ASSERT_EQ(locked.blocks.size(), 1u);
  EXPECT_EQ(locked.blocks[0].frame, "");

  // Rows read and set values in the settings, this filter's or kept for another.
  Settings settings = edgewise::default_settings(edgewise::bilateral_filter());
  const edgewise_dialog::ControlRow& strength = own.rows[0];
  EXPECT_EQ(edgewise_dialog::row_value(strength, settings), 0.5);
  edgewise_dialog::set_row_value(strength, 0.75, settings);
  EXPECT_EQ(settings.others.at("strength"), "0.75");
  settings = edgewise::choose_filter(settings, smudge_filter());
  EXPECT_EQ(settings.spec.get("strength"), 0.75);
  EXPECT_EQ(edgewise_dialog::unit_text(own.rows[2], settings), "px");
}

TEST(Generators, SettingsTextKeepsEveryFiltersValues) {
  Settings settings = edgewise::default_settings(smudge_filter());
  ASSERT_EQ(edgewise::apply_argument(settings, "shape", "square", smudge_registry()), "");
  ASSERT_EQ(edgewise::apply_argument(settings, "sigma-s", "4", smudge_registry()), "");
  ASSERT_EQ(edgewise::apply_argument(settings, "filter", "bilateral", smudge_registry()), "");
  const std::string text = edgewise::format_arguments(settings, smudge_registry());
  EXPECT_EQ(text.rfind("--filter bilateral --strength 0.5 --shape square --reach 0 --tint 0 --mode rgb "
                       "--working-space perceptual --sigma-s 4",
                       0),
            0u)
      << text;
  Settings parsed;
  ASSERT_EQ(edgewise::parse_arguments(text, parsed, smudge_registry()), "");
  EXPECT_EQ(edgewise::format_arguments(parsed, smudge_registry()), text);
  parsed = edgewise::choose_filter(parsed, smudge_filter());
  EXPECT_EQ(smudge_parameters(parsed.spec).shape, SmudgeShape::square);
  EXPECT_EQ(parsed.spec.get("sigma-s"), 4);
}

// Stored text is read by name: old or reordered values come back, a bad
// one keeps its default with a message, an option no longer known is skipped.
TEST(Generators, StoredTextIsReadLeniently) {
  Settings settings;
  const std::vector<std::string> problems = edgewise::read_arguments(
      "--sigma-r 33 --no-longer-known 5 --mode purple --kernel huber --filter smudge --strength 0.25", settings,
      smudge_registry());
  EXPECT_EQ(&settings.spec.filter(), &smudge_filter());
  EXPECT_EQ(settings.spec.get("sigma-r"), 33);
  EXPECT_EQ(settings.spec.get("strength"), 0.25);
  EXPECT_EQ(settings.spec.get("mode"), 1);  // purple: the default, rgb
  EXPECT_EQ(settings.spec.get("kernel"), 3);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("no-longer-known"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("invalid mode 'purple'"), std::string::npos) << problems[1];
  // Bytes of another layout (an older plug-in's binary last values).
  Settings garbage;
  EXPECT_FALSE(edgewise::read_arguments(std::string("\x45\x57\x01\x00\x03", 5), garbage).empty());
  EXPECT_EQ(edgewise::format_arguments(garbage), edgewise::format_arguments(Settings{}));
}

// A parameter added after publication (EW_PDB_SINCE(2): the working space)
// makes a second procedure per filter, named like GIMP's file-png-save2,
// with the published arguments unchanged and the new one appended.
TEST(Generators, LaterParametersMakeAVersionedProcedure) {
  using edgewise_plugin::pdb_arguments;
  const edgewise::BackendList& backends = edgewise::installed_backends();
  EXPECT_EQ(edgewise_plugin::pdb_versions(edgewise::bilateral_filter()), 2);
  EXPECT_EQ(edgewise_plugin::procedure_name(edgewise::bilateral_filter(), 1), "plug-in-edgewise-bilateral");
  EXPECT_EQ(edgewise_plugin::procedure_name(edgewise::bilateral_filter(), 2), "plug-in-edgewise-bilateral2");
  for (const FilterInfo* filter : {&edgewise::bilateral_filter(), &edgewise::adaptive_filter(), &smudge_filter()}) {
    SCOPED_TRACE(filter->name);
    std::vector<std::string> expected = names(pdb_arguments(*filter, backends, 1));
    expected.push_back("working-space");
    EXPECT_EQ(names(pdb_arguments(*filter, backends, 2)), expected);
  }
  const edgewise::FilterInfo* found = nullptr;
  int version = 0;
  ASSERT_TRUE(
      edgewise_plugin::find_procedure(edgewise::builtin_registry(), "plug-in-edgewise-adaptive2", found, version));
  EXPECT_EQ(found, &edgewise::adaptive_filter());
  EXPECT_EQ(version, 2);
  ASSERT_TRUE(
      edgewise_plugin::find_procedure(edgewise::builtin_registry(), "plug-in-edgewise-bilateral", found, version));
  EXPECT_EQ(version, 1);
  EXPECT_FALSE(
      edgewise_plugin::find_procedure(edgewise::builtin_registry(), "plug-in-edgewise-bilateral3", found, version));

  // mode sigma-s radius sigma-r kernel iterations backend working-space
  Settings settings;
  const std::vector<double> call = {1, 2.5, 0, 25, 0, 1, 1, 1};
  ASSERT_EQ(edgewise_plugin::read_call(edgewise::bilateral_filter(), backends, call, settings, 2), "");
  EXPECT_EQ(edgewise::bilateral_parameters(settings.spec).working_space, edgewise::WorkingSpace::linear);
  EXPECT_EQ(settings.backend, "cpu");
  const std::vector<double> published(call.begin(), call.end() - 1);
  ASSERT_EQ(edgewise_plugin::read_call(edgewise::bilateral_filter(), backends, published, settings, 1), "");
  EXPECT_EQ(edgewise::bilateral_parameters(settings.spec).working_space, edgewise::WorkingSpace::perceptual);
  EXPECT_NE(edgewise_plugin::read_call(edgewise::bilateral_filter(), backends, call, settings, 1)
                .find("expected 10 arguments, got 11"),
            std::string::npos);

  // The published procedure runs as published, whatever the last values say.
  settings.spec = with_space(settings.spec, "linear");
  edgewise_plugin::keep_to_version(settings, 1);
  EXPECT_EQ(edgewise::bilateral_parameters(settings.spec).working_space, edgewise::WorkingSpace::perceptual);

  // Their help says which values the filter sees and what the other takes.
  const std::string old_help = edgewise_plugin::pdb_help(edgewise::bilateral_filter(), backends, 1);
  EXPECT_NE(old_help.find("R'G'B' floats"), std::string::npos) << old_help;
  EXPECT_NE(old_help.find("runs with working-space perceptual; plug-in-edgewise-bilateral2 takes the same arguments "
                          "followed by that one"),
            std::string::npos)
      << old_help;
  const std::string new_help = edgewise_plugin::pdb_help(edgewise::bilateral_filter(), backends, 2);
  EXPECT_NE(new_help.find("Working space: the values the filter sees"), std::string::npos) << new_help;
  EXPECT_NE(new_help.find("{0 perceptual, 1 linear} (default perceptual)"), std::string::npos) << new_help;
}

TEST(Generators, RunModeAndProgressTexts) {
  for (int mode : {0, 1, 2}) EXPECT_EQ(edgewise_plugin::check_run_mode(mode), "");
  EXPECT_EQ(edgewise_plugin::check_run_mode(5),
            "invalid run-mode 5: expected RUN-INTERACTIVE (0), RUN-NONINTERACTIVE (1) or RUN-WITH-LAST-VALS (2)");
  EXPECT_NE(edgewise_plugin::check_run_mode(-1), "");
  // The progress names the filter being run, each its own.
  for (const FilterInfo* filter : edgewise::builtin_registry().filters()) {
    const std::string text = edgewise_plugin::progress_text(edgewise::default_settings(*filter));
    EXPECT_EQ(text.rfind(filter->title, 0), 0u) << text;
  }
  Settings adaptive = edgewise::default_settings(edgewise::adaptive_filter());
  adaptive.spec = with_space(adaptive.spec, "linear");
  EXPECT_EQ(edgewise_plugin::progress_text(adaptive), "Edgewise Adaptive (rgb, linear, gaussian)");
}

// An older procedure's dialog does not offer what it does not take.
TEST(Generators, DialogHidesParametersAProcedureDoesNotTake) {
  const auto all = edgewise_dialog::describe_dialog(edgewise::builtin_registry(), edgewise::installed_backends(),
                                                    &edgewise::bilateral_filter());
  const auto published = edgewise_dialog::describe_dialog(edgewise::builtin_registry(), edgewise::installed_backends(),
                                                          &edgewise::bilateral_filter(), {"working-space"});
  ASSERT_EQ(all.blocks.size(), 1u);
  ASSERT_EQ(published.blocks.size(), 1u);
  EXPECT_EQ(published.blocks[0].rows.size() + 1, all.blocks[0].rows.size());
  for (const auto& row : published.blocks[0].rows) EXPECT_STRNE(row.param->cli_flag, "working-space");
}

// The dialog's own state rides in the settings text, after the backend,
// and comes back by name.
TEST(Generators, DialogStateIsKeptWithTheValues) {
  Settings settings;
  ASSERT_EQ(edgewise::apply_argument(settings, "dialog-view", "split"), "");
  ASSERT_EQ(edgewise::apply_argument(settings, "dialog-zoom", "200%"), "");
  const std::string text = edgewise::format_arguments(settings);
  EXPECT_NE(text.find("--backend auto --dialog-view split --dialog-zoom 200%"), std::string::npos) << text;
  Settings parsed;
  ASSERT_EQ(edgewise::parse_arguments(text, parsed), "");
  EXPECT_EQ(parsed.dialog, settings.dialog);
  Settings read;
  EXPECT_TRUE(edgewise::read_arguments(text, read).empty());
  EXPECT_EQ(read.dialog.at("view"), "split");
}

// The Help window's text after the user guide (user_guide.h, tested in
// test_user_guide): every control the dialog offers.
TEST(Generators, DialogHelpHasEveryControl) {
  const auto layout = edgewise_dialog::describe_dialog(smudge_registry(), edgewise::installed_backends(), nullptr);
  const std::string help = edgewise_dialog::dialog_help_text(layout);
  for (const auto& block : layout.blocks)
    for (const auto& row : block.rows)
      EXPECT_NE(help.find(row.param->label + " (--" + row.param->cli_flag + "): " + row.param->help), std::string::npos)
          << row.param->cli_flag;
  EXPECT_NE(help.find("Allowed: 0 to 50 px (an integer; 0 = auto: 4 px); default 0."), std::string::npos);
  EXPECT_NE(help.find("Backend: Auto"), std::string::npos);
}

// GIMP's theme as the dialog reads it: the default widget style's text and
// background colours, named colours resolved.
TEST(GimpTheme, ToneFromTheDefaultStyle) {
  using edgewise_plugin::ThemeTone;
  const std::string dark =
      "style \"other\" { bg[NORMAL] = \"#ffffff\" fg[NORMAL] = \"#000000\" }\n"
      "style \"main\"\n{\n  color[\"back\"] = \"#383838\"\n  fg[NORMAL] = \"#DDD\"\n  bg[NORMAL] = @back\n}\n"
      "class \"GtkWidget\" style \"main\"\n";
  EXPECT_EQ(edgewise_plugin::theme_tone(dark), ThemeTone::dark);
  const std::string light = "style \"s\" {\n fg[NORMAL] = { 0.1, 0.1, 0.1 }\n bg[NORMAL] = \"#dddddd\"\n}\n";
  EXPECT_EQ(edgewise_plugin::theme_tone(light), ThemeTone::light);
  EXPECT_EQ(edgewise_plugin::theme_tone("style \"s\" { GtkDialog::button-spacing = 6 }"), ThemeTone::unknown);
  EXPECT_EQ(edgewise_plugin::theme_tone_in_path("Dark", "/nonexistent"), ThemeTone::unknown);
}

TEST(GimpTheme, GimpsOwnThemes) {
  const std::string themes = "/usr/share/gimp/2.0/themes";
  if (!std::ifstream(themes + "/Dark/gtkrc")) GTEST_SKIP() << "GIMP 2.10's themes are not installed in " << themes;
  using edgewise_plugin::ThemeTone;
  const std::string path = "/nonexistent:" + themes;
  EXPECT_EQ(edgewise_plugin::theme_tone_in_path("Dark", path), ThemeTone::dark);
  EXPECT_EQ(edgewise_plugin::theme_tone_in_path("Light", path), ThemeTone::light);
  EXPECT_EQ(edgewise_plugin::theme_tone_in_path("Gray", path), ThemeTone::light);  // dark text on mid grey
  EXPECT_EQ(edgewise_plugin::theme_tone_in_path("System", path), ThemeTone::unknown);
}

// The made-up filter runs through the real executor on the family's kernels.
TEST(Generators, MadeUpFilterRuns) {
  EW_SEEDED_RNG(rng);
  const ImageShape shape{33, 21, 4};
  const FloatImage input = random_image(rng, shape);
  edgewise::FilterSpec spec(smudge_filter());
  ASSERT_EQ(edgewise::set_param(spec, "strength", 0.8), "");
  ASSERT_EQ(edgewise::set_param(spec, "mode", std::string("lab")), "");
  ASSERT_EQ(edgewise::set_param(spec, "sigma-r", 12.0), "");  // the smudge scales it, so not auto
  const FloatImage smudged = run_cpu(spec, input);
  const FloatImage bilateral = run_cpu(edgewise::bilateral_spec(smudge_as_bilateral(spec)), input);
  EXPECT_TRUE(bit_identical(smudged, bilateral));
  EXPECT_EQ(edgewise::filter_reach(spec), edgewise::effective_radius(smudge_as_bilateral(spec)));
  // Its preview scaling comes from the metadata: reach is a length.
  ASSERT_EQ(edgewise::set_param(spec, "reach", 10.0), "");
  EXPECT_EQ(edgewise::spec_at_scale(spec, 0.5).get("reach"), 5);
}

}  // namespace
}  // namespace edgewise_test
