// kvplan: each verb is one library call; errors become exit code 2 with a one-line message
// (4 for an internal error; 3 is kvplan check's UNCERTAIN).
#include <algorithm>
#include <iostream>

#include "common.h"

int main(int argc, char** argv) {
  using namespace kvplan;
  CLI::App app{"kvplan: exact KV-cache and recurrent-state sizes, and what fits on your hardware"};
  app.set_version_flag("--version", KVPLAN_VERSION_STRING);
  app.require_subcommand(1);
  cli::Runner run;
  auto verbs = cli::verbs();
  std::sort(verbs.begin(), verbs.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
  for (const auto& v : verbs) v.add(app, run);
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
