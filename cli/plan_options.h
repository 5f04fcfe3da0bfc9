#pragma once
// Options shared by `kvplan plan` and `kvplan sweep`: device, parallelism, dtypes, memory
// budget. Parsing only; the planner does the work.
#include <fstream>
#include <map>
#include <sstream>

#include "common.h"
#include "kvplan/planner.h"
#include "kvplan/request.h"

namespace kvplan::cli {

struct PlanOptions {
  ModelOptions model;
  std::string gpu_file;
  // Each request-table field's text as typed (kvplan/request.h); "" = not given. The library's
  // parser (plan_input_from_request) reads them, as it reads Python's keywords and the page's form.
  std::map<std::string, std::string, std::less<>> fields;

  // Registers every plan field but context/concurrency (the verb's own: plan takes one, sweep a list).
  void add(CLI::App& cmd) {
    model.add(cmd);
    for (const RequestField& f : plan_request_fields()) {
      if (f.name == "context" || f.name == "concurrency") continue;
      auto* o = add_field(cmd, "plan", f.name, fields[std::string(f.name)]);
      if (!f.default_value.empty()) o->default_str(std::string(f.default_value));
      if (f.name == "gpu") cmd.add_option("--gpu-file", gpu_file, "a custom accelerator: JSON object with the catalog's keys");
    }
  }

  // The device alone (kvplan check's --gpu / --gpu-file / --gpu-memory).
  Accelerator device() const { return input().gpu; }

  // The planner input; context/concurrency are set by the verb (or given in `extra`).
  PlanInput input(const nlohmann::json& extra = nlohmann::json::object()) const {
    nlohmann::json req = extra;
    for (const auto& [name, text] : fields)
      if (!text.empty()) req[name] = text;
    if (gpu_file.empty()) return plan_input_from_request(req, FieldNaming::cli_flag);
    const Accelerator device =
        accelerator_from_json(read_regular_file(gpu_file, kMaxGpuFileBytes, "--gpu-file"), gpu_file);
    return plan_input_from_request(req, FieldNaming::cli_flag, &device);
  }
};

// "4096,32k,128k" -> token counts.
inline std::vector<std::uint64_t> parse_token_list(const std::vector<std::string>& items, const char* flag) {
  // Split here, not by CLI11's delimiter (which drops an empty item: "1k,,2k" read as 1k,2k).
  std::vector<std::uint64_t> out;
  for (const auto& s : items)
    for (std::size_t b = 0;;) {
      const std::size_t e = std::min(s.find(',', b), s.size());
      const std::string piece = s.substr(b, e - b);
      if (piece.find_first_not_of(" \t") == std::string::npos)
        throw InputError::value(flag, s, "a comma-separated list such as 4096,32k,128k with no empty item");
      out.push_back(parse_tokens(piece, flag));
      if (e == s.size()) break;
      b = e + 1;
    }
  if (out.empty()) throw InputError::value(flag, "nothing", "a comma-separated list such as 4096,32k,128k");
  return out;
}

}  // namespace kvplan::cli
