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
// One layer: its one mixer's JSON, or for a layer with several, "kind" (the first mixer's) and
// "mixers" (each mixer's JSON, in order). Carries "index".
nlohmann::json layer_to_json(const LayerSpec& l);
nlohmann::json to_json(const ParameterCounts& p);

std::string format_size_text(const CacheSize& s);
std::string format_inspect_text(const ModelSpec& m, const CacheDtypes& dt);
// The same tables as CSV (a header row, then one row per layer; byte counts exact). size: every
// layer's tokens held per sequence and its bytes for all sequences; inspect: the layer's shape,
// bytes per token and state bytes per sequence.
std::string format_size_csv(const CacheSize& s);
std::string format_inspect_csv(const ModelSpec& m, const CacheDtypes& dt);
// One CSV field: quoted (RFC 4180) when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text);
std::string describe_layer(const LayerCache& c);       // "8 KV heads x 128/128, window 4096"
std::string describe_layer(const LayerSpec& l);        // each mixer, joined by " + "
// "full_attention", or "full_attention+mamba" for a layer with several mixers.
std::string layer_kinds(const LayerSpec& l);

// Every JSON document a verb prints carries "schema": "kvplan.<verb>/<version>", and
// docs/schema/<verb>.schema.json describes it. Unknown verbs are an internal error.
std::string schema_id(std::string_view verb);
nlohmann::json with_schema(std::string_view verb, nlohmann::json document);

}  // namespace kvplan
