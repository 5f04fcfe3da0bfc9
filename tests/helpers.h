#pragma once
// Shared test helpers: load bundled models, check what an error says, read golden data.
#include <fstream>
#include <sstream>
#include <string>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "kvplan/kvplan.h"

namespace kvplan::test {

// Predicate for BOOST_CHECK_EXCEPTION: the message contains every fragment.
struct HasMessage {
  std::vector<std::string> fragments;
  HasMessage(std::initializer_list<std::string> f) : fragments(f) {}
  bool operator()(const std::exception& e) const {
    std::string what = e.what();
    for (const auto& f : fragments)
      if (what.find(f) == std::string::npos) {
        BOOST_TEST_MESSAGE("message \"" << what << "\" lacks \"" << f << "\"");
        return false;
      }
    return true;
  }
};

inline std::string source_path(const std::string& rel) { return std::string(KVPLAN_SOURCE_DIR) + "/" + rel; }

inline nlohmann::json read_json(const std::string& rel) {
  std::ifstream in(source_path(rel));
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

// The golden numbers shared by the C++ and Python tests (tests/data/golden.json).
inline const nlohmann::json& golden() {
  static const nlohmann::json g = read_json("tests/data/golden.json");
  return g;
}

inline Workload workload(std::uint64_t tokens, std::uint64_t batch = 1, std::optional<Dtype> kv = std::nullopt) {
  Workload w;
  w.tokens = tokens;
  w.batch = batch;
  w.k_dtype = kv;
  w.v_dtype = kv;
  return w;
}

// Test-side views of the one Attention type with a given span; like std::get, they throw
// std::bad_variant_access when the layer is not attention with that span.
template <class Span>
inline const Attention& attention_of(const LayerCache& c) {
  const auto& a = std::get<Attention>(c);
  (void)std::get<Span>(a.span);
  return a;
}
inline const Attention& full_attention_of(const LayerCache& c) { return attention_of<Attention::All>(c); }
inline const Attention& sliding_attention_of(const LayerCache& c) { return attention_of<Attention::Window>(c); }
inline const Attention& chunked_attention_of(const LayerCache& c) { return attention_of<Attention::Chunk>(c); }

// The smallest window (sliding) or chunk (chunked) of the model, 0 when it has none: the token
// counts around it are where a capped cache stops growing.
inline std::uint64_t smallest_window(const ModelSpec& m) {
  std::uint64_t w = 0;
  for (const auto& l : m.layers)
    for (const auto& c : l.mixers) {
      std::uint64_t x = 0;
      if (const auto* a = std::get_if<Attention>(&c)) x = span_tokens(a->span);
      if (x && (!w || x < w)) w = x;
    }
  return w;
}

}  // namespace kvplan::test
