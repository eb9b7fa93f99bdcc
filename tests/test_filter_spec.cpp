// The one validator and the parameter tables generated from the .def lists:
// every bad value is refused with a message that names the flag, the value
// and the allowed range, and each table agrees with its typed struct's
// defaults. Run over every filter of the built-in registry.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "bilateral.h"
#include "filter_registry.h"
#include "filter_spec.h"

namespace {

using edgewise::BilateralParameters;
using edgewise::ColorMode;
using edgewise::FilterInfo;
using edgewise::FilterSpec;
using edgewise::ParamInfo;
using edgewise::RangeKernel;

std::string lower(std::string text) {
  for (char& ch : text) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return text;
}

// How a number is expected to appear in a message: shortest usual form.
std::string number_text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

const std::vector<const FilterInfo*>& filters() { return edgewise::builtin_registry().filters(); }

// Every (filter, parameter) pair of the built-in registry.
void for_each_param(const std::function<void(const FilterInfo&, const ParamInfo&)>& visit) {
  for (const FilterInfo* filter : filters())
    for (const ParamInfo* info : filter->params()) {
      SCOPED_TRACE(std::string(filter->name) + " --" + info->cli_flag);
      visit(*filter, *info);
    }
}

void expect_names_flag_value_and_range(const std::string& message, const ParamInfo& info,
                                       const std::string& value_text) {
  SCOPED_TRACE("message: \"" + message + "\"");
  EXPECT_FALSE(message.empty());
  EXPECT_NE(message.find(info.cli_flag), std::string::npos) << "flag missing";
  EXPECT_NE(lower(message).find(lower(value_text)), std::string::npos) << "value " << value_text << " missing";
  if (info.is_enum()) {
    for (const std::string& token : info.tokens)
      EXPECT_NE(message.find(token), std::string::npos) << "choice " << token << " missing";
  } else {
    EXPECT_NE(message.find(number_text(info.hard_min)), std::string::npos) << "minimum missing";
    EXPECT_NE(message.find(number_text(info.hard_max)), std::string::npos) << "maximum missing";
  }
}

// Values just outside each hard bound, far outside, and not numbers at all.
std::vector<double> out_of_range_values(const ParamInfo& info) {
  const double span = std::max(1.0, info.hard_max - info.hard_min);
  std::vector<double> values = {info.hard_min - 1.0,
                                info.hard_max + 1.0,
                                info.hard_min - span,
                                info.hard_max + span,
                                std::numeric_limits<double>::quiet_NaN(),
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity()};
  // Just below a positive minimum (sigma 0.05 < 0.1), and just above the
  // maximum for floats.
  if (info.hard_min > 0) values.push_back(info.hard_min / 2);
  if (!info.is_integer()) values.push_back(info.hard_max * 1.001);
  // -1 is auto where the parameter takes it (tested apart): just beside it.
  for (double& value : values)
    if (value == edgewise::kNoiseAuto && info.takes_noise_auto()) value = edgewise::kNoiseAuto - 0.5;
  return values;
}

TEST(FilterSpec, DefaultsAreValid) {
  EXPECT_EQ(edgewise::validate(FilterSpec{}), "");
  EXPECT_EQ(&FilterSpec{}.filter(), &edgewise::builtin_registry().default_filter());
  for (const FilterInfo* filter : filters()) EXPECT_EQ(edgewise::validate(FilterSpec(*filter)), "") << filter->name;
}

TEST(FilterSpec, TablesMatchTheTypedDefaults) {
  // The typed structs are generated from the same lists: the spec each row
  // builds from default-constructed structs holds each table's default.
  for (const FilterInfo* filter : filters())
    ASSERT_NE(filter->typed_defaults, nullptr)
        << "edgewise:" << filter->name << "'s registry row sets no typed_defaults (its X_spec(XParameters{}))";
  for_each_param([&](const FilterInfo& filter, const ParamInfo& info) {
    const FilterSpec defaults(filter);
    const FilterSpec from_structs = filter.typed_defaults();
    ASSERT_EQ(&from_structs.filter(), &filter);
    EXPECT_EQ(edgewise::get_param(defaults, info.cli_flag), double(float(info.default_value)));
    // A parameter that takes auto defaults to it; its typed struct starts
    // from the declared value, which a dialog offers when Auto is unticked.
    if (info.takes_noise_auto()) {
      EXPECT_EQ(info.default_value, edgewise::kNoiseAuto);
      EXPECT_EQ(edgewise::get_param(from_structs, info.cli_flag), double(float(info.manual_default)));
    } else {
      EXPECT_EQ(info.manual_default, info.default_value);
      EXPECT_EQ(edgewise::get_param(from_structs, info.cli_flag), edgewise::get_param(defaults, info.cli_flag));
    }
    EXPECT_EQ(filter.find_param(info.cli_flag), &info);
    // A flag means one thing in a registry: declared once, or by two
    // groups that agree on its kind, range, choices and unit (nlm's mode
    // and sigmas); defaults may differ.
    const ParamInfo& first = *edgewise::builtin_registry().find_param(info.cli_flag);
    EXPECT_EQ(first.type, info.type);
    EXPECT_EQ(first.hard_min, info.hard_min);
    EXPECT_EQ(first.hard_max, info.hard_max);
    EXPECT_EQ(first.tokens, info.tokens);
    EXPECT_STREQ(first.unit, info.unit);
    EXPECT_FALSE(info.label.empty());
    EXPECT_TRUE(info.help && info.help[0]);
    EXPECT_LE(info.hard_min, info.manual_default);
    EXPECT_GE(info.hard_max, info.manual_default);
    EXPECT_LE(info.hard_min, info.slider_min);
    EXPECT_LE(info.slider_min, info.slider_max);
    EXPECT_GE(info.hard_max, info.slider_max);
    if (info.is_enum()) {
      ASSERT_FALSE(info.tokens.empty());
      EXPECT_EQ(info.hard_max, double(info.tokens.size() - 1));
      EXPECT_EQ(info.default_token, info.tokens.at(size_t(info.default_value)));
    }
  });
  const BilateralParameters defaults;
  EXPECT_STREQ(edgewise::to_string(defaults.mode), FilterSpec{}.filter().find_param("mode")->default_token.c_str());
  EXPECT_STREQ(edgewise::to_string(defaults.kernel), FilterSpec{}.filter().find_param("kernel")->default_token.c_str());
}

// The dialog builds its rows from every group: every label has one access
// key, and no two parameters share one.
TEST(FilterSpec, MnemonicsAreUnique) {
  for (const FilterInfo* filter : filters()) {
    std::string keys;  // the dialog shows one filter's groups at a time
    for (const ParamInfo* param : filter->params()) {
      const ParamInfo& info = *param;
      SCOPED_TRACE(std::string(filter->name) + " --" + info.cli_flag);
      EXPECT_FALSE(info.label.empty());
      EXPECT_EQ(info.label.find('_'), std::string::npos);
      const size_t marker = info.mnemonic_label.find('_');
      ASSERT_NE(marker, std::string::npos);
      ASSERT_LT(marker + 1, info.mnemonic_label.size());
      const char key = char(std::tolower(static_cast<unsigned char>(info.mnemonic_label[marker + 1])));
      EXPECT_EQ(keys.find(key), std::string::npos) << "access key " << key << " used twice";
      keys += key;
    }
  }
}

// The spellings the CLI and the PDB promise, in the enums' order.
TEST(FilterSpec, EnumTokensFollowEnumOrder) {
  const FilterInfo& bilateral = edgewise::bilateral_filter();
  const ParamInfo* mode = bilateral.find_param("mode");
  const ParamInfo* kernel = bilateral.find_param("kernel");
  ASSERT_TRUE(mode && kernel);
  EXPECT_EQ(mode->tokens.at(size_t(ColorMode::per_channel)), "per-channel");
  EXPECT_EQ(mode->tokens.at(size_t(ColorMode::rgb)), "rgb");
  EXPECT_EQ(mode->tokens.at(size_t(ColorMode::lab)), "lab");
  EXPECT_EQ(kernel->tokens.at(size_t(RangeKernel::gaussian)), "gaussian");
  EXPECT_EQ(kernel->tokens.at(size_t(RangeKernel::tukey)), "tukey");
  EXPECT_EQ(kernel->tokens.at(size_t(RangeKernel::lorentz)), "lorentz");
  EXPECT_EQ(kernel->tokens.at(size_t(RangeKernel::huber)), "huber");
}

TEST(FilterSpec, OutOfRangeValuesAreRefusedByName) {
  for_each_param([](const FilterInfo& filter, const ParamInfo& info) {
    for (double value : out_of_range_values(info)) {
      SCOPED_TRACE(number_text(value));
      FilterSpec spec(filter);
      const double before = edgewise::get_param(spec, info.cli_flag);
      const std::string message = edgewise::set_param(spec, info.cli_flag, value);
      expect_names_flag_value_and_range(message, info, number_text(value));
      EXPECT_EQ(edgewise::get_param(spec, info.cli_flag), before) << "refused value was stored";
      EXPECT_EQ(edgewise::validate(spec), "");
    }
  });
}

TEST(FilterSpec, HardBoundsAreAccepted) {
  for_each_param([](const FilterInfo& filter, const ParamInfo& info) {
    for (double value : {info.hard_min, info.hard_max}) {
      SCOPED_TRACE(number_text(value));
      FilterSpec spec(filter);
      // adapt-min and adapt-max each take their whole range when the other allows it.
      if (spec.has("adapt-max")) edgewise::set_param(spec, "adapt-max", 10.0);
      if (std::string(info.cli_flag) == "adapt-max") edgewise::set_param(spec, "adapt-min", 0.0001);
      EXPECT_EQ(edgewise::set_param(spec, info.cli_flag, value), "");
      // Real parameters hold the bound rounded to float, which must still pass.
      EXPECT_EQ(float(edgewise::get_param(spec, info.cli_flag)), float(value));
      EXPECT_EQ(edgewise::validate(spec), "");
      std::ostringstream text;
      text.precision(17);
      text << value;
      FilterSpec from_text(filter);
      if (!info.is_enum()) {
        EXPECT_EQ(edgewise::set_param(from_text, info.cli_flag, text.str()), "");
      }
    }
  });
}

TEST(FilterSpec, NonIntegerValuesOfIntegerParamsAreRefused) {
  for_each_param([](const FilterInfo& filter, const ParamInfo& info) {
    if (!info.is_integer()) return;
    for (double value : {info.hard_min + 0.5, info.hard_max - 0.25, info.default_value + 1e-9}) {
      SCOPED_TRACE(number_text(value));
      FilterSpec spec(filter);
      const std::string message = edgewise::set_param(spec, info.cli_flag, value);
      EXPECT_FALSE(message.empty());
      if (!info.is_enum()) {
        expect_names_flag_value_and_range(message, info, number_text(value));
        EXPECT_NE(message.find("integer"), std::string::npos) << message;
      }
    }
  });
  FilterSpec spec;
  const std::string message = edgewise::set_param(spec, "radius", 2.5);
  EXPECT_NE(message.find("radius"), std::string::npos) << message;
  EXPECT_NE(message.find("2.5"), std::string::npos) << message;
  EXPECT_NE(message.find("integer"), std::string::npos) << message;
}

// Typed values filled directly (as code does, or a deserialiser might)
// become a spec only through the validator, with the same message.
TEST(FilterSpec, TypedValuesAreValidatedByName) {
  struct Case {
    const char* flag;
    void (*spoil)(BilateralParameters&);
    const char* value_text;
  };
  const Case cases[] = {
      {"sigma-s", [](BilateralParameters& s) { s.sigma_s = 0.05f; }, "0.05"},
      {"sigma-s", [](BilateralParameters& s) { s.sigma_s = 100.5f; }, "100.5"},
      {"sigma-s", [](BilateralParameters& s) { s.sigma_s = std::nanf(""); }, "nan"},
      {"sigma-s", [](BilateralParameters& s) { s.sigma_s = -3.0f; }, "-3"},
      {"radius", [](BilateralParameters& s) { s.radius = -1; }, "-1"},
      {"radius", [](BilateralParameters& s) { s.radius = 129; }, "129"},
      {"sigma-r", [](BilateralParameters& s) { s.sigma_r = 0.0f; }, "0"},
      {"sigma-r", [](BilateralParameters& s) { s.sigma_r = 200000.0f; }, "200000"},
      {"sigma-r", [](BilateralParameters& s) { s.sigma_r = INFINITY; }, "inf"},
      {"iterations", [](BilateralParameters& s) { s.iterations = 0; }, "0"},
      {"iterations", [](BilateralParameters& s) { s.iterations = 21; }, "21"},
      {"mode", [](BilateralParameters& s) { s.mode = static_cast<ColorMode>(3); }, "3"},
      {"mode", [](BilateralParameters& s) { s.mode = static_cast<ColorMode>(-1); }, "-1"},
      {"kernel", [](BilateralParameters& s) { s.kernel = static_cast<RangeKernel>(4); }, "4"},
  };
  for (const Case& test : cases) {
    SCOPED_TRACE(std::string(test.flag) + " = " + test.value_text);
    const ParamInfo* info = edgewise::bilateral_filter().find_param(test.flag);
    ASSERT_NE(info, nullptr);
    BilateralParameters parameters;
    test.spoil(parameters);
    try {
      edgewise::bilateral_spec(parameters);
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& error) {
      expect_names_flag_value_and_range(error.what(), *info, test.value_text);
    }
  }
}

TEST(FilterSpec, UnknownEnumTokenListsTheChoices) {
  for (const char* flag : {"mode", "kernel"}) {
    const ParamInfo* info = edgewise::bilateral_filter().find_param(flag);
    ASSERT_NE(info, nullptr) << flag;
    for (const char* bad : {"bogus", "RGB", "", "gauss"}) {
      SCOPED_TRACE(std::string(flag) + " '" + bad + "'");
      FilterSpec spec;
      const std::string message = edgewise::set_param(spec, flag, std::string(bad));
      // Spellings are exact, not case-folded or abbreviated.
      EXPECT_FALSE(message.empty());
      EXPECT_NE(message.find(flag), std::string::npos) << message;
      EXPECT_NE(message.find(std::string("'") + bad + "'"), std::string::npos) << message;
      for (const std::string& token : info->tokens) EXPECT_NE(message.find(token), std::string::npos) << message;
    }
  }
}

TEST(FilterSpec, EnumTokensAndIndicesSet) {
  for (const char* flag : {"mode", "kernel"}) {
    const ParamInfo* info = edgewise::bilateral_filter().find_param(flag);
    ASSERT_NE(info, nullptr);
    for (size_t i = 0; i < info->tokens.size(); ++i) {
      FilterSpec by_token, by_index;
      EXPECT_EQ(edgewise::set_param(by_token, flag, info->tokens[i]), "");
      EXPECT_EQ(edgewise::set_param(by_index, flag, double(i)), "");
      EXPECT_EQ(edgewise::get_param(by_token, flag), double(i));
      EXPECT_EQ(edgewise::get_param(by_index, flag), double(i));
    }
  }
}

TEST(FilterSpec, NumbersFromText) {
  FilterSpec spec;
  EXPECT_EQ(edgewise::set_param(spec, "sigma-s", std::string("2.5")), "");
  EXPECT_FLOAT_EQ(edgewise::bilateral_parameters(spec).sigma_s, 2.5f);
  EXPECT_EQ(edgewise::set_param(spec, "radius", std::string("7")), "");
  EXPECT_EQ(edgewise::bilateral_parameters(spec).radius, 7);
  for (const char* bad : {"abc", "", "2.5px", "1e"}) {
    const std::string message = edgewise::set_param(spec, "sigma-r", std::string(bad));
    EXPECT_NE(message.find("sigma-r"), std::string::npos) << message;
    EXPECT_NE(message.find(std::string("'") + bad + "'"), std::string::npos) << message;
  }
  const std::string message = edgewise::set_param(spec, "radius", std::string("2.5"));
  EXPECT_NE(message.find("integer"), std::string::npos) << message;
  const std::string huge = edgewise::set_param(spec, "sigma-r", std::string("1e9"));
  EXPECT_NE(huge.find("100000"), std::string::npos) << huge;
}

TEST(FilterSpec, UnknownFlagIsRefused) {
  FilterSpec spec;
  EXPECT_NE(edgewise::set_param(spec, "sigma", 1.0).find("sigma"), std::string::npos);
  EXPECT_FALSE(edgewise::set_param(spec, "no-such-flag", std::string("1")).empty());
  EXPECT_EQ(edgewise::builtin_registry().find_param("no-such-flag"), nullptr);
  EXPECT_TRUE(std::isnan(edgewise::get_param(spec, "no-such-flag")));
  // A parameter of another filter is not this filter's.
  EXPECT_NE(edgewise::set_param(spec, "adapt-k", 1.0).find("adapt-k"), std::string::npos);
}

// Switching filters keeps the values both filters have.
TEST(FilterSpec, WithFilterKeepsSharedValues) {
  FilterSpec bilateral;
  ASSERT_EQ(edgewise::set_param(bilateral, "sigma-s", 4.5), "");
  ASSERT_EQ(edgewise::set_param(bilateral, "mode", std::string("lab")), "");
  const FilterSpec adaptive = edgewise::with_filter(bilateral, edgewise::adaptive_filter());
  EXPECT_EQ(&adaptive.filter(), &edgewise::adaptive_filter());
  EXPECT_EQ(adaptive.get("sigma-s"), 4.5);
  EXPECT_EQ(adaptive.get("mode"), double(ColorMode::lab));
  EXPECT_EQ(adaptive.get("adapt-k"), double(float(1.25)));  // its own default
  EXPECT_EQ(edgewise::with_filter(adaptive, edgewise::bilateral_filter()).values(), bilateral.values());
}

// Values that alone are fine but together are not.
TEST(FilterSpec, AdaptiveBoundsMustBeOrdered) {
  FilterSpec spec(edgewise::adaptive_filter());
  ASSERT_EQ(edgewise::set_param(spec, "adapt-min", 0.5), "");
  ASSERT_EQ(edgewise::set_param(spec, "adapt-max", 0.1), "");
  EXPECT_NE(edgewise::validate(spec).find("adapt-min 0.5: must not exceed adapt-max 0.1"), std::string::npos)
      << edgewise::validate(spec);
}

// One formatter for "invalid X V: allowed range is A to B unit": the unit
// follows the numbers, what qualifies it follows in parentheses.
TEST(FilterSpec, RangeMessagesPlaceUnitsAfterTheNumbers) {
  FilterSpec spec(edgewise::bilateral_filter());
  EXPECT_EQ(edgewise::set_param(spec, "sigma-r", 0.0),
            "invalid sigma-r 0: allowed range is 0.001 to 100000 code values (0-255 scale at any bit depth; Delta E "
            "in lab mode; or auto, -1 in the PDB: 3 x the image's noise sigma in rgb mode, 2.5 x in per-channel, "
            "(1.75 + 0.025 sigma) x as Delta E in lab)");
  EXPECT_EQ(edgewise::set_param(spec, "sigma-s", -1.0), "invalid sigma-s -1: allowed range is 0.1 to 100 px");
  EXPECT_EQ(edgewise::set_param(spec, "radius", 200.0),
            "invalid radius 200: allowed range is 0 to 128 px (an integer; 0 = auto: ceil(2 sigma-s))");
  EXPECT_EQ(edgewise::set_param(spec, "iterations", 0.0),
            "invalid iterations 0: allowed range is 1 to 20 (an integer)");
  EXPECT_EQ(edgewise::set_param(spec, "mode", 7.0), "invalid mode 7: expected per-channel, rgb or lab (0 to 2)");
  for_each_param([](const FilterInfo& filter, const ParamInfo& info) {
    if (info.is_enum() || !info.unit[0]) return;
    FilterSpec spec(filter);
    const std::string message = edgewise::set_param(spec, info.cli_flag, info.hard_max + 1);
    SCOPED_TRACE(message);
    EXPECT_NE(message.find(number_text(info.hard_max) + " " + info.unit), std::string::npos) << "unit not after B";
    EXPECT_EQ(message.find(std::string(") ") + info.unit), std::string::npos) << "unit after a note";
  });
}

// Help texts follow their label ("Range kernel: ...") in the PDB help and
// the dialog's Help: none repeats it.
TEST(FilterSpec, HelpTextsDoNotRepeatTheirLabel) {
  for_each_param([](const FilterInfo&, const ParamInfo& info) {
    EXPECT_NE(lower(info.help).rfind(lower(info.label), 0), 0u) << info.help;
  });
}

// The kernels as core/range_kernels.h computes them, q = (x/s)^2.
TEST(FilterSpec, KernelHelpStatesTheMath) {
  const std::string help = edgewise::bilateral_filter().find_param("kernel")->help;
  for (const char* formula : {"gaussian exp(-x^2 / (2 s^2))", "tukey 0.5 (1 - (x/s)^2)^2 for |x| <= s, 0 beyond",
                              "lorentz 2 / (2 + (x/s)^2)", "huber 1 for |x| <= s, s / |x| beyond"})
    EXPECT_NE(help.find(formula), std::string::npos) << formula << " in: " << help;
}

}  // namespace
