#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kvplan/model.h"
#include "kvplan/sizes.h"

namespace kvplan {

// Reports: the library's own formatters, so the CLI, Python and web show the same thing.
// JSON byte counts are exact integers.
nlohmann::json to_json(const CacheSize& s);
nlohmann::json to_json(const ModelSpec& m);            // model summary + per-layer specs
nlohmann::json layer_to_json(const LayerCache& c);     // kind + its dimensions
nlohmann::json to_json(const ParameterCounts& p);

std::string format_size_text(const CacheSize& s);
std::string format_inspect_text(const ModelSpec& m, const CacheDtypes& dt);
std::string describe_layer(const LayerCache& c);       // "8 KV heads x 128/128, window 4096"

// Every JSON document a verb prints carries "schema": "kvplan.<verb>/<version>", and
// docs/schema/<verb>.schema.json describes it. Unknown verbs are an internal error.
std::string schema_id(std::string_view verb);
nlohmann::json with_schema(std::string_view verb, nlohmann::json document);

}  // namespace kvplan
