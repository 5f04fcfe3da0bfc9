#include <iostream>

#include "plan_options.h"

namespace kvplan::cli {

namespace {
struct PlanCliOptions {
  PlanOptions plan;
  std::string context;  // "" = not given: the library's default (4,096), reported as such
  std::string concurrency = "1";
  bool json = false;
  bool require_fit = false;
};
}  // namespace

static void register_plan(CLI::App& app, Runner& run) {
  auto opt = std::make_shared<PlanCliOptions>();
  auto* cmd = app.add_subcommand("plan", "what fits on which GPUs, capacity, min GPUs and roofline decode speed");
  opt->plan.add(*cmd);
  add_field(*cmd, "plan", "context", opt->context, "-n,--tokens")->default_str(std::string(request_field("plan", "context").default_value));
  add_field(*cmd, "plan", "concurrency", opt->concurrency, "-c")->capture_default_str();
  cmd->add_flag("--json", opt->json, "print one JSON object");
  cmd->add_flag("--require-fit", opt->require_fit, "exit 1 when the plan does not fit");
  cmd->callback([&run, opt] {
    run = [opt] {
      nlohmann::json extra = {{"concurrency", opt->concurrency}};
      if (!opt->context.empty()) extra["context"] = opt->context;
      const PlanInput in = opt->plan.input(extra);
      const ModelSpec m = opt->plan.model.load();
      const Plan p = plan(m, in);
      if (opt->json) {
        auto j = to_json(p);
        j["assumptions"] = m.assumptions;
        j["request"] = request_json(in);  // the request as the library resolved it (kvplan/request.h)
        print_json(j);
      } else {
        std::cout << format_plan_text(p);
        for (const auto& a : m.assumptions) std::cout << "assumption: " << a << "\n";
      }
      return opt->require_fit && !p.fits ? kExitCheckFailed : 0;
    };
  });
}

KVPLAN_VERB(40, register_plan);

}  // namespace kvplan::cli
