// The real GTK dialog built for a registry holding a made-up filter
// (tests/registry/smudge_filter.h), in an X display (run_in_x.sh starts
// Xvfb): its rows, choices, ranges, Auto box, frame and filter list come
// from the registry alone; OK returns the settings the widgets show.
#include <gtest/gtest.h>
#include <gtk/gtk.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bilateral.h"
#include "buffer_port.h"
#include "filter_dialog.h"
#include "param_controls.h"
#include "registry/smudge_filter.h"

namespace {

using edgewise_test::smudge_filter;
using edgewise_test::smudge_registry;

// Every widget under `widget`.
void collect(GtkWidget* widget, std::vector<GtkWidget*>& out) {
  out.push_back(widget);
  if (GTK_IS_CONTAINER(widget))
    gtk_container_forall(
        GTK_CONTAINER(widget),
        [](GtkWidget* child, gpointer list) { collect(child, *static_cast<std::vector<GtkWidget*>*>(list)); }, &out);
}

std::vector<std::string> label_texts(const std::vector<GtkWidget*>& widgets) {
  std::vector<std::string> texts;
  for (GtkWidget* widget : widgets) {
    if (GTK_IS_LABEL(widget)) texts.push_back(gtk_label_get_label(GTK_LABEL(widget)));
    if (GTK_IS_FRAME(widget) && gtk_frame_get_label(GTK_FRAME(widget)))
      texts.push_back(gtk_frame_get_label(GTK_FRAME(widget)));
  }
  return texts;
}

bool has(const std::vector<std::string>& texts, const std::string& text) {
  return std::find(texts.begin(), texts.end(), text) != texts.end();
}

// A shown window holding the rows of the made-up registry's every group.
GtkWidget* rows_window(edgewise_dialog::ParamControls& controls) {
  const auto layout = edgewise_dialog::describe_dialog(smudge_registry(), edgewise::installed_backends(), nullptr);
  GtkWidget* window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
  GtkWidget* grid = gtk_grid_new();
  gtk_container_add(GTK_CONTAINER(window), grid);
  for (const auto& block : layout.blocks) controls.add_rows(GTK_GRID(grid), block.rows);
  gtk_widget_show_all(window);
  return window;
}

class DisplayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    if (!edgewise_dialog::open_display(why_not)) GTEST_SKIP() << why_not;
  }
};

TEST_F(DisplayTest, ParamRowsFromTheRegistry) {
  edgewise_dialog::ParamControls controls([] {});
  GtkWidget* window = rows_window(controls);

  std::vector<GtkWidget*> widgets;
  collect(window, widgets);
  const std::vector<std::string> labels = label_texts(widgets);
  for (const char* label : {"S_trength", "S_hape", "Rea_ch", "T_int", "_Spatial sigma", "Range si_gma"})
    EXPECT_TRUE(has(labels, label)) << label;
  // The choice lists its spellings; the number's spin button takes the hard range.
  std::vector<GtkWidget*> shape = controls.row("shape");
  ASSERT_EQ(shape.size(), 2u);
  ASSERT_TRUE(GTK_IS_COMBO_BOX_TEXT(shape[1]));
  gtk_combo_box_set_active(GTK_COMBO_BOX(shape[1]), 2);
  gchar* spelling = gtk_combo_box_text_get_active_text(GTK_COMBO_BOX_TEXT(shape[1]));
  EXPECT_STREQ(spelling, "soft-edge");
  g_free(spelling);
  const std::vector<GtkWidget*> reach = controls.row("reach");
  ASSERT_EQ(reach.size(), 4u);  // label, slider, spin button, Auto
  ASSERT_TRUE(GTK_IS_SPIN_BUTTON(reach[2]));
  double low = 0, high = 0;
  gtk_spin_button_get_range(GTK_SPIN_BUTTON(reach[2]), &low, &high);
  EXPECT_EQ(low, 0);
  EXPECT_EQ(high, 50);
  EXPECT_TRUE(GTK_IS_CHECK_BUTTON(reach[3]));

  // Values shown and read back through the settings, for this filter's
  // parameters and the other's.
  edgewise::Settings settings = edgewise::default_settings(smudge_filter());
  ASSERT_EQ(edgewise::apply_argument(settings, "strength", "0.3", smudge_registry()), "");
  ASSERT_EQ(edgewise::apply_argument(settings, "reach", "12", smudge_registry()), "");
  controls.show(settings);
  edgewise::Settings read = edgewise::default_settings(smudge_filter());
  controls.read(read);
  EXPECT_EQ(edgewise::format_arguments(read, smudge_registry()),
            edgewise::format_arguments(settings, smudge_registry()));
  gtk_widget_destroy(window);
}

// A range parameter that takes auto: its unit, then an Auto check that
// shows the image's noise; ticked, the spin button shows the value auto
// takes for that noise and the settings hold auto; unticked, the number.
TEST_F(DisplayTest, NoiseAutoRowShowsTheEstimateAndTheValueItGives) {
  edgewise_dialog::ParamControls controls([] {});
  GtkWidget* window = rows_window(controls);
  const std::vector<GtkWidget*> sigma_r = controls.row("sigma-r");
  ASSERT_EQ(sigma_r.size(), 5u);  // label, slider, spin button, unit, Auto
  ASSERT_TRUE(GTK_IS_SPIN_BUTTON(sigma_r[2]));
  ASSERT_TRUE(GTK_IS_LABEL(sigma_r[3]));
  ASSERT_TRUE(GTK_IS_CHECK_BUTTON(sigma_r[4]));

  edgewise::NoiseEstimate noise = edgewise::white_noise_estimate(7.0, 3);
  noise.channels[1].sigma = 7.25;
  noise.channels[2].sigma = 9.0;
  controls.set_noise(noise);
  EXPECT_STREQ(gtk_button_get_label(GTK_BUTTON(sigma_r[4])), "Auto (noise 7.2)");

  edgewise::Settings settings = edgewise::default_settings(edgewise::bilateral_filter());
  ASSERT_EQ(settings.spec.get("sigma-r"), edgewise::kNoiseAuto);  // the default
  controls.show(settings);
  EXPECT_TRUE(gtk_toggle_button_get_active(GTK_TOGGLE_BUTTON(sigma_r[4])));
  EXPECT_FALSE(gtk_widget_get_sensitive(sigma_r[2]));
  const double expected = edgewise::resolve_noise(settings.spec, noise).get("sigma-r");
  EXPECT_NEAR(expected, 3.0 * 7.25, 1e-4);  // the rule (rgb mode), on the median channel
  EXPECT_NEAR(gtk_spin_button_get_value(GTK_SPIN_BUTTON(sigma_r[2])), expected, 0.01);
  edgewise::Settings read = edgewise::default_settings(edgewise::bilateral_filter());
  ASSERT_EQ(edgewise::apply_argument(read, "sigma-r", "30", edgewise::builtin_registry()), "");
  controls.read(read);
  EXPECT_EQ(read.spec.get("sigma-r"), edgewise::kNoiseAuto);

  gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(sigma_r[4]), FALSE);
  gtk_spin_button_set_value(GTK_SPIN_BUTTON(sigma_r[2]), 12.5);
  controls.read(read);
  EXPECT_EQ(read.spec.get("sigma-r"), 12.5);
  gtk_widget_destroy(window);
}

// Issue 37: no greyed control without its reason. For each filter of the
// made-up registry and of the built-in one, at its defaults and with the
// image's noise known, every insensitive widget of every row says why at
// the start of its tooltip: no effect with these choices, set by Auto, or
// Off.
TEST_F(DisplayTest, EveryGreyedControlSaysWhy) {
  for (const edgewise::Registry* registry : {&smudge_registry(), &edgewise::builtin_registry()}) {
    edgewise_dialog::ParamControls controls([] {});
    const auto layout = edgewise_dialog::describe_dialog(*registry, edgewise::installed_backends(), nullptr);
    GtkWidget* window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
    GtkWidget* grid = gtk_grid_new();
    gtk_container_add(GTK_CONTAINER(window), grid);
    std::vector<std::string> flags;
    for (const auto& block : layout.blocks) {
      controls.add_rows(GTK_GRID(grid), block.rows);
      for (const auto& row : block.rows)
        if (row.param) flags.push_back(row.param->cli_flag);
    }
    gtk_widget_show_all(window);
    controls.set_image({640, 480, 3});
    controls.set_noise(edgewise::white_noise_estimate(7.0, 3));
    int greyed = 0;
    for (const edgewise::FilterInfo* filter : registry->filters()) {
      const edgewise::Settings settings = edgewise::default_settings(*filter);
      controls.show(settings);
      controls.refresh_dependent(settings);
      for (const std::string& flag : flags) {
        if (!settings.spec.has(flag) || settings.spec.filter().find_param(flag) == nullptr) continue;
        for (GtkWidget* widget : controls.row(flag)) {
          if (gtk_widget_get_sensitive(widget)) continue;
          ++greyed;
          gchar* tip = gtk_widget_get_tooltip_text(widget);
          const std::string text = tip ? tip : "";
          g_free(tip);
          EXPECT_TRUE(text.rfind("No effect now: ", 0) == 0 || text.rfind("Set by Auto", 0) == 0 ||
                      text.rfind("Off: ", 0) == 0)
              << filter->name << " " << flag << ": a greyed " << G_OBJECT_TYPE_NAME(widget)
              << " whose tooltip does not start with its reason: '" << text << "'";
        }
      }
    }
    EXPECT_GT(greyed, 0);
    gtk_widget_destroy(window);
  }
}

// The Denoise dialog shows one noise figure, under its plot: its Auto
// checks say "Auto" alone and relate the noise they follow to it.
TEST_F(DisplayTest, AutoWithoutItsFigureSaysHowItRelates) {
  edgewise_dialog::ParamControls controls([] {});
  GtkWidget* window = rows_window(controls);
  const std::vector<GtkWidget*> sigma_r = controls.row("sigma-r");
  ASSERT_EQ(sigma_r.size(), 5u);
  controls.set_noise(edgewise::white_noise_estimate(7.0, 3), "That is the figure under the plot times Strength.");
  EXPECT_STREQ(gtk_button_get_label(GTK_BUTTON(sigma_r[4])), "Auto");
  gchar* tip = gtk_widget_get_tooltip_text(sigma_r[4]);
  ASSERT_NE(tip, nullptr);
  EXPECT_NE(std::string(tip).find("That is the figure under the plot times Strength."), std::string::npos) << tip;
  g_free(tip);
  gtk_widget_destroy(window);
}

// The whole dialog for the made-up filter: its frame, its rows and the
// filter list, then OK, through an observer as a host would attach one.
TEST_F(DisplayTest, WholeDialogForAMadeUpFilter) {
  struct Press : edgewise_dialog::DialogObserver {
    std::vector<std::string> labels;
    std::string shown_settings, ok_settings;
    void shown(const std::string& settings) override {
      shown_settings = settings;
      g_idle_add(
          [](gpointer self) -> gboolean {
            auto* press = static_cast<Press*>(self);
            GList* windows = gtk_window_list_toplevels();
            for (GList* item = windows; item; item = item->next)
              if (GTK_IS_DIALOG(item->data) && gtk_widget_get_visible(GTK_WIDGET(item->data))) {
                std::vector<GtkWidget*> widgets;
                collect(GTK_WIDGET(item->data), widgets);
                press->labels = label_texts(widgets);
                gtk_dialog_response(GTK_DIALOG(item->data), GTK_RESPONSE_OK);
              }
            g_list_free(windows);
            return G_SOURCE_REMOVE;
          },
          this);
    }
    void responded(bool ok, const std::string& settings) override {
      if (ok) ok_settings = settings;
    }
  };
  std::vector<uint8_t> pixels(size_t(40) * 30 * 3, 128);
  edgewise_dialog::BufferPort port({pixels.data(), {40, 30, 3}, edgewise::SampleType::u8, 0});
  Press press;
  edgewise_dialog::DialogOptions options;
  options.title = "Smudge test";
  options.registry = &smudge_registry();
  options.observer = &press;
  edgewise::Settings settings = edgewise::default_settings(smudge_filter());
  ASSERT_EQ(edgewise::apply_argument(settings, "shape", "square", smudge_registry()), "");
  ASSERT_TRUE(edgewise_dialog::run_filter_dialog(port, settings, options));
  for (const char* label : {"_Filter", "Smudge (made up)", "S_trength", "S_hape", "Rea_ch", "T_int", "_Backend"})
    EXPECT_TRUE(has(press.labels, label)) << label;
  EXPECT_EQ(&settings.spec.filter(), &smudge_filter());
  EXPECT_EQ(edgewise_test::smudge_parameters(settings.spec).shape, edgewise_test::SmudgeShape::square);
  EXPECT_EQ(press.ok_settings, edgewise::format_arguments(settings, smudge_registry()));
  EXPECT_EQ(press.shown_settings.rfind("--filter smudge --strength 0.5 --shape square", 0), 0u) << press.shown_settings;
}

}  // namespace
