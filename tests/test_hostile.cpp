// Issue 18: the hostile-input regression table (tests/data/hostile_inputs.json) through the
// library, plus the pieces that keep every input one clear error: the depth bound, the quoting
// helper, control-character escaping, the sweep grid limit and the file reader.
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

#include "gguf_writer.h"
#include "helpers.h"
#include "util/config_view.h"

using namespace kvplan;
using namespace kvplan::test;

namespace {

std::string expand(std::string s) {
  auto gen = [](std::string text, const std::regex& re, auto make) {
    std::string out;
    std::smatch m;
    while (std::regex_search(text, m, re)) {
      out += m.prefix().str() + make(std::stoul(m[1].str()));
      text = m.suffix().str();
    }
    return out + text;
  };
  s = gen(s, std::regex(R"(\{\{nest:(\d+)\}\})"), [](unsigned long n) { return std::string(n, '[') + std::string(n, ']'); });
  s = gen(s, std::regex(R"(\{\{csv:(\d+)\}\})"), [](unsigned long n) {
    std::string o;
    for (unsigned long i = 1; i <= n; ++i) o += (i > 1 ? "," : "") + std::to_string(i);
    return o;
  });
  return s;
}

std::string text_of(const nlohmann::json& lib) {
  if (lib.contains("text")) return expand(lib["text"].get<std::string>());
  nlohmann::json cfg = read_json(lib["base"].get<std::string>());
  for (const auto& k : lib["remove"]) cfg.erase(k.get<std::string>());
  return cfg.dump();
}

// Runs one library case; returns the error message, or "" when it succeeded (and then checks
// the verdict a check case names).
std::string run_library(const nlohmann::json& lib) {
  const std::string kind = lib["kind"];
  const std::string source = lib.value("source", std::string("case"));
  const std::string text = text_of(lib);
  try {
    if (kind == "config") {
      (void)load_model_from_json(text, source);
    } else if (kind == "gpu") {
      (void)accelerator_from_json(text, source);
    } else if (kind == "deployment" || kind == "launch") {
      const Deployment d = kind == "launch" ? parse_launch_command(split_command_line(text)) : parse_deployment(text, source);
      CheckOptions o;
      o.gpu = lib.value("gpu", std::string());
      const CheckResult r = check_deployment(d, o);
      if (lib.contains("passed")) BOOST_TEST(r.passed == lib["passed"].get<bool>());
    } else {
      BOOST_FAIL("unknown case kind " + kind);
    }
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(hostile)

BOOST_AUTO_TEST_CASE(regression_table) {
  const auto table = read_json("tests/data/hostile_inputs.json");
  std::size_t ran = 0;
  for (const auto& c : table["cases"]) {
    if (!c.contains("library")) continue;
    BOOST_TEST_CONTEXT(c["name"].get<std::string>()) {
      const std::string got = run_library(c["library"]);
      const int exit = c["exit"];
      if (exit == 2) {
        std::string want = c["message"];
        for (auto p = want.find("{dir}"); p != std::string::npos; p = want.find("{dir}")) want.erase(p, 5);
        BOOST_TEST(got == want);
      } else {
        BOOST_TEST(got == "");
      }
      ++ran;
    }
  }
  BOOST_TEST(ran >= 8u);
}

BOOST_AUTO_TEST_CASE(depth_bound_is_exact) {
  // The root object is level 1: 63 arrays inside it make 64 levels (read), 64 make 65 (refused).
  const std::string head = R"({"model_type": "llama", "x": )";
  BOOST_CHECK_NO_THROW(detail::check_json_depth(head + std::string(63, '[') + std::string(63, ']') + "}", "d.json"));
  BOOST_CHECK_EXCEPTION(detail::check_json_depth(head + std::string(64, '[') + std::string(64, ']') + "}", "d.json"),
                        ConfigError, HasMessage({"d.json: arrays and objects nested deeper than 64 levels (at byte 92)"}));
  // Brackets inside strings (and escaped quotes) are not nesting.
  BOOST_CHECK_NO_THROW(detail::check_json_depth(R"({"a": "\"[[[[)" + std::string(100, '[') + "\"}", "s.json"));
}

BOOST_AUTO_TEST_CASE(describe_json_is_capped_and_iterative) {
  // 200,000 levels built without the parser: describe_json must not recurse.
  nlohmann::json deep = nlohmann::json::array();
  for (int i = 0; i < 200000; ++i) deep = nlohmann::json::array({std::move(deep)});
  const std::string s = detail::describe_json(deep);
  BOOST_TEST(s.size() == 60u);
  BOOST_TEST(s == std::string(57, '[') + "...");
  BOOST_TEST(detail::describe_json(nlohmann::json{{"a", 1}, {"b", {true, nullptr}}}) == R"({"a":1,"b":[true,null]})");
  BOOST_TEST(detail::describe_json(nlohmann::json(std::string(1000, 'x'))) == "\"" + std::string(56, 'x') + "...");
  BOOST_TEST(detail::describe_json(nlohmann::json("a\nb")) == R"("a\nb")");
  BOOST_TEST(detail::describe_json(nlohmann::json("\xff")) == "\"\xEF\xBF\xBD\"");  // replaced, never thrown
}

BOOST_AUTO_TEST_CASE(messages_escape_control_characters) {
  BOOST_TEST(std::string(InputError::value("x", "a\nb\r\tc\x1b[0m\x7f", "y").what()) ==
             R"(x: expected y, got "a\nb\r\tc\x1b[0m\x7f")");
  BOOST_TEST(std::string(ConfigError(std::string("p\n\x00q", 4)).what()) == R"(p\n\x00q)");
  BOOST_TEST(escape_control_characters("plain \xc3\xa9") == "plain \xc3\xa9");  // UTF-8 untouched
}

BOOST_AUTO_TEST_CASE(sweep_grid_limit_is_exact) {
  const ModelSpec m = load_model("Qwen/Qwen3-0.6B");
  PlanInput in;
  in.gpu = find_accelerator("H100");
  in.context = 4096;
  const std::vector<std::uint64_t> one{4096};
  std::vector<std::uint64_t> many(kMaxSweepCells, 1);
  BOOST_TEST(sweep(m, in, one, many).cache_bytes.size() == kMaxSweepCells);
  many.push_back(1);
  BOOST_CHECK_EXCEPTION(sweep(m, in, one, many), InputError,
                        HasMessage({"sweep grid (--contexts x --concurrency): expected between 1 and 1048576 cells, "
                                    "got \"1 x 1048577 cells\""}));
  BOOST_CHECK_EXCEPTION(sweep(m, in, std::vector<std::uint64_t>{0}, one), InputError,
                        HasMessage({"contexts (--contexts): expected positive token counts, got \"0\""}));
}

BOOST_AUTO_TEST_CASE(streamed_sweep_json_equals_the_document) {
  const ModelSpec m = load_model("Qwen/Qwen3-0.6B");
  PlanInput in;
  in.gpu = find_accelerator("H100");
  in.context = 4096;
  const std::vector<std::uint64_t> ctx{4096, 32768}, conc{1, 8, 64};
  const SweepResult s = sweep(m, in, ctx, conc);
  auto j = to_json(s);
  j["model"] = "Qwen/Qwen3-0.6B";
  std::ostringstream streamed;
  write_sweep_json(streamed, s, {{"model", "Qwen/Qwen3-0.6B"}});
  BOOST_TEST(streamed.str() == j.dump(2) + "\n");
  std::ostringstream csv;
  write_sweep_csv(csv, s);
  BOOST_TEST(csv.str() == format_sweep_csv(s));
}

BOOST_AUTO_TEST_CASE(read_regular_file_refuses_what_is_not_a_file) {
  BOOST_CHECK_EXCEPTION(read_regular_file("/dev/zero", 1024, "--gpu-file"), InputError,
                        HasMessage({"--gpu-file: expected a regular file, not a character device, got \"/dev/zero\""}));
  const auto dir = std::filesystem::temp_directory_path() / ("kvplan-hostile-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string fifo = (dir / "f").string(), big = (dir / "big").string();
  BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  BOOST_CHECK_EXCEPTION(read_regular_file(fifo, 1024, "x"), InputError, HasMessage({"a regular file, not a FIFO"}));
  BOOST_CHECK_EXCEPTION(read_regular_file(dir.string(), 1024, "x"), InputError, HasMessage({"not a directory"}));
  std::ofstream(big) << std::string(1025, 'a');
  BOOST_CHECK_EXCEPTION(read_regular_file(big, 1024, "x"), InputError,
                        HasMessage({"a file of at most 1024 bytes (it has 1025)"}));
  BOOST_TEST(read_regular_file(big, 1025, "x").size() == 1025u);
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(planner_refuses_nonfinite_and_negative_rates) {
  const ModelSpec m = load_model("Qwen/Qwen3-0.6B");
  PlanInput in;
  in.gpu = find_accelerator("H100");
  in.context = 4096;
  PlanInput bad = in;
  bad.gpu.bf16_flops = -1e12;
  BOOST_CHECK_EXCEPTION(plan(m, bad), InputError, HasMessage({"GPU BF16 FLOP/s (--gpu-flops)", "a positive finite rate"}));
  bad = in;
  bad.gpu.bf16_flops = std::numeric_limits<double>::quiet_NaN();
  BOOST_CHECK_THROW(plan(m, bad), InputError);
  bad = in;
  bad.gpu.bandwidth_bytes_per_s = std::numeric_limits<double>::infinity();
  BOOST_CHECK_EXCEPTION(plan(m, bad), InputError, HasMessage({"GPU bandwidth (--gpu-bandwidth)", "a non-negative finite rate"}));
}

// Issue 29, the large inputs (made here, not committed): a trace line nested 1M deep, 1 MiB
// strings in a trace, a GGUF file and a model id, and a 3 GiB Ollama manifest (sparse). Each is one
// error naming the file or field, whose message stays under kMaxMessageBytes (plus the cut
// marker): no stack overflow, no runaway memory, no whole-string echo.
BOOST_AUTO_TEST_CASE(issue29_large_inputs_are_bounded) {
  const std::size_t cap = kMaxMessageBytes + 64;
  const auto fails = [&](auto&& f, std::vector<std::string> fragments) {
    try {
      f();
      BOOST_ERROR("no error");
    } catch (const Error& e) {
      const std::string what = e.what();
      BOOST_TEST(what.size() <= cap);
      for (const auto& frag : fragments) BOOST_TEST(what.find(frag) != std::string::npos, what.substr(0, 300) << " lacks " << frag);
    }
  };
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  fails([&] { (void)parse_trace(R"({"arrival_s": 0, "prompt_tokens": 1, "output_tokens": 1, "x": )" + deep + "}\n", "deep.jsonl"); },
        {"deep.jsonl:1", "deeper than 64 levels"});
  const std::string mib(1u << 20, 'x');
  fails([&] { (void)parse_trace(R"({"arrival_s": 0, "prompt_tokens": ")" + mib + R"(", "output_tokens": 1})" "\n", "str.jsonl"); },
        {"str.jsonl:1", "/prompt_tokens", "..."});
  fails([&] { (void)parse_trace("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,m," + mib + ",1,2,x\n", "b.csv"); },
        {"b.csv:2", "(1048576 bytes)"});
  // A GGUF general.architecture of 1 MiB.
  test::TempDir dir;
  test::GgufWriter g;
  g.str("general.architecture", mib);
  g.u32("x.block_count", 2);
  g.tensor("token_embd.weight", {64, 32}, 0, 8192);
  g.write(dir.path / "long.gguf");
  fails([&] { (void)load_model((dir.path / "long.gguf").string()); }, {"long.gguf", "general.architecture", "(1048576 bytes)"});
  // A 100k-character model id is quoted once, cut.
  fails([&] { (void)resolve_model(std::string(100'000, 'a')); }, {"(100000 bytes)"});
  // A 3 GiB Ollama manifest is refused on its size before anything is read.
  const auto store = dir.path / "ollama";
  std::filesystem::create_directories(store / "manifests" / "registry.ollama.ai" / "library" / "big");
  const auto manifest = store / "manifests" / "registry.ollama.ai" / "library" / "big" / "latest";
  std::ofstream(manifest).put('{');
  std::filesystem::resize_file(manifest, 3ull << 30);
  const test::EnvVar env("OLLAMA_MODELS", store.c_str());
  fails([&] { (void)resolve_model("ollama:big"); }, {"Ollama manifest", "at most 1048576 bytes", "latest"});
}

// The committed seeds of issue 29 (fuzz/corpus/<target>/issue29_*, written by
// fuzz/corpus/make_issue29_seeds.py and by hand) through the calls their fuzzers make: each is one
// kvplan::Error naming the file, or, for the valid ones, read.
BOOST_AUTO_TEST_CASE(issue29_seeds_are_clear_errors) {
  namespace fs = std::filesystem;
  std::size_t n = 0;
  for (const std::string target : {"fuzz_gguf", "fuzz_safetensors", "fuzz_trace"}) {
    for (const auto& e : fs::directory_iterator(source_path("fuzz/corpus/" + target))) {
      const std::string name = e.path().filename().string();
      if (!name.starts_with("issue29_") || name.starts_with("issue29_valid")) continue;
      BOOST_TEST_CONTEXT(target << "/" << name) {
        std::ifstream in(e.path(), std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string bytes = ss.str();
        try {
          if (target == "fuzz_gguf") {
            (void)load_model(e.path().string());  // as `kvplan size FILE.gguf` reads it (split.count included)
          } else if (target == "fuzz_safetensors") {
            (void)parse_safetensors_header(bytes, name, 1u << 20);
          } else {
            const auto reqs = parse_trace(bytes, name);
            // The two that read: arrivals shifted to the earliest row, the quoted comma one field.
            BOOST_TEST((name == "issue29_arrivals_1.7e15.jsonl" || name == "issue29_azure_row_before_first.csv" ||
                        name == "issue29_burstgpt_quoted_comma.csv"));
            BOOST_TEST(reqs.front().arrival_s == 0.0);
            if (name == "issue29_azure_row_before_first.csv") BOOST_TEST(std::fabs(reqs.back().arrival_s - 4.314579) < 1e-6);
            if (name == "issue29_burstgpt_quoted_comma.csv") BOOST_TEST(reqs.front().prompt_tokens == 472u);
            continue;
          }
          BOOST_ERROR("read without an error");
        } catch (const Error& err) {
          BOOST_TEST(std::string(err.what()).find(name) != std::string::npos, std::string(err.what()).substr(0, 300));
          BOOST_TEST(std::string(err.what()).size() <= kMaxMessageBytes + 64);
        }
        ++n;
      }
    }
  }
  BOOST_TEST(n >= 17u);
}

BOOST_AUTO_TEST_SUITE_END()
