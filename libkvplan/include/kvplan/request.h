#pragma once
// The requests as data: one table of the options `kvplan plan` / `kvplan sweep` (and one of
// `kvplan size`), the
// Python kvplan.plan()/sweep() keywords and the page's plan form share (name, type, unit,
// default, help), and the JSON echo of a resolved request (PlanInput). The CLI takes its help
// texts from the table, the Python module its accepted keywords, and tests/cli/test_fields_cli.py
// walks it: every field exists in every face and reaches the library identically.
#include <span>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kvplan/fields.h"
#include "kvplan/planner.h"
#include "kvplan/sizes.h"

namespace kvplan {

// FieldType and FieldNaming: kvplan/fields.h (shared with the engine option tables).

struct RequestField {
  std::string_view name;           // Python keyword, web form field and request-echo key
  std::string_view cli_flag;       // the plan/sweep flag
  FieldType type;
  std::string_view unit;           // "tokens", "bytes", "bytes/s", "FLOP/s", "" (none)
  std::string_view default_value;  // as text; "" = unset (the library decides, see help)
  std::string_view help;
};

// The plan/sweep request options, in CLI order (context and concurrency are plan's; sweep takes
// lists under the same names).
std::span<const RequestField> plan_request_fields();
// The entry named `name` (Python keyword); InputError for an unknown one.
const RequestField& plan_request_field(std::string_view name);
// `kvplan size` / kvplan.size(): tokens, batch, tp and the cache dtypes (the same entries as plan's).
std::span<const RequestField> size_request_fields();
// By verb: "plan" and "sweep" (plan_request_fields), "size"; InputError for another.
std::span<const RequestField> request_fields(std::string_view verb);
const RequestField& request_field(std::string_view verb, std::string_view name);

// The one request parser every face calls. `request` is an object of table fields (its keys the
// field names); each value is a string as typed ("32k", "80GB", "21,20,20,19", "auto"), a number,
// or for count lists an array; null, "" and [] mean unset (the table's default). Each value is
// read by its field's type; an unknown key or a bad value is an InputError naming the field as
// `naming` spells it. "gpu" may be a catalog name or an object with the catalog's keys; `device`,
// when given, replaces it (the CLI's --gpu-file). The result is what the planner is called with,
// and request_json() echoes it.
PlanInput plan_input_from_request(const nlohmann::json& request, FieldNaming naming = FieldNaming::keyword,
                                  const Accelerator* device = nullptr);
// The same for `kvplan size` / kvplan.size() (size_request_fields).
Workload workload_from_request(const nlohmann::json& request, FieldNaming naming = FieldNaming::keyword);

nlohmann::json to_json(const RequestField& f);
// The request as the planner resolved it from any face: every PlanInput value (device figures
// included), so the CLI and Python echo the same object for the same options.
nlohmann::json request_json(const PlanInput& in);
// A sweep's request: request_json(in) without `context` and `concurrency` (the grid's axes, which
// the sweep document lists as `contexts` and `concurrency`).
nlohmann::json sweep_request_json(const PlanInput& in);

}  // namespace kvplan
