// kvplan: each verb is one library call; errors become exit code 2 with a one-line message
// (4 for an internal error; 3 is kvplan check's UNCERTAIN).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "common.h"
#include "kvplan/text.h"

namespace {
// CLI11 parses "-1" into an unsigned option as 2^64-1 and accepts "nan" and "inf" for doubles.
// No kvplan option takes a negative, infinite or NaN number: every numeric option (UINT, INT,
// FLOAT) of every verb refuses them before the verb runs.
std::string refuse_negative_or_nonfinite(std::string& text) {
  std::size_t b = text.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  if (text[b] == '-') return "expected a non-negative number, got \"" + text + "\"";
  char* end = nullptr;
  const double v = std::strtod(text.c_str() + b, &end);
  if (end != text.c_str() + b && !std::isfinite(v)) return "expected a finite number, got \"" + text + "\"";
  return {};
}

void guard_numeric_options(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    const std::string t = opt->get_type_name();
    if (t.find("INT") != std::string::npos || t.find("FLOAT") != std::string::npos)
      opt->check(CLI::Validator(refuse_negative_or_nonfinite, ""));
  }
  for (CLI::App* sub : app.get_subcommands({})) guard_numeric_options(*sub);
}
}  // namespace

int main(int argc, char** argv) {
  using namespace kvplan;
  CLI::App app{"kvplan: exact KV-cache and recurrent-state sizes, and what fits on your hardware"};
  app.set_version_flag("--version", KVPLAN_VERSION_STRING);
  app.require_subcommand(1);
  cli::Runner run;
  auto verbs = cli::verbs();
  std::sort(verbs.begin(), verbs.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
  for (const auto& v : verbs) v.add(app, run);
  guard_numeric_options(app);
  // CLI11 says only "A subcommand is required" for a mistyped verb: name it and the closest one.
  const auto is_verb = [&](const std::string& name) {
    for (const CLI::App* sub : app.get_subcommands({}))
      if (sub->check_name(name)) return true;
    return false;
  };
  if (argc > 1 && argv[1][0] != '-' && !is_verb(argv[1])) {
    std::string best;
    std::size_t best_d = 0;
    for (const CLI::App* sub : app.get_subcommands({})) {
      const std::size_t d = edit_distance(argv[1], sub->get_name());
      if (best.empty() || d < best_d) best = sub->get_name(), best_d = d;
    }
    std::cerr << "kvplan: " << InputError::unknown("verb", argv[1], best_d <= 3 ? best : "").what()
              << " (kvplan --help lists the verbs)\n";
    return cli::kExitBadInput;
  }
  // llama.cpp's slot count is -np wherever kvplan reads it (llama-server's own spelling, as inside
  // a launch command); CLI11 has no multi-letter short options, so it is read as --parallel.
  // Words after "--" are a launch command, read by the engine's own table.
  static char parallel_flag[] = "--parallel";
  for (int i = 1; i < argc && std::string_view(argv[i]) != "--"; ++i)
    if (std::string_view(argv[i]) == "-np") argv[i] = parallel_flag;
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "kvplan: " << e.what() << "\n";
    return cli::kExitBadInput;
  } catch (const Error& e) {
    std::cerr << "kvplan: " << e.what() << "\n";
    return cli::kExitBadInput;
  }
  for (const auto* sub : app.get_subcommands()) cli::set_current_verb(sub->get_name());
  try {
    return run ? run() : 2;
  } catch (const Error& e) {
    std::cerr << "kvplan: " << e.what() << "\n";
    return cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "kvplan: internal error: " << e.what() << "\n";
    return cli::kExitInternal;
  }
}
