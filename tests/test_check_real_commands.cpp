// kvplan check on launch commands written by others, each verbatim with where it was published:
// flags kvplan does not model make the verdict UNCERTAIN (naming the flag and why) while the
// memory kvplan counts holds, and FAIL only where it does not; the real flags that were unknown
// are read as the engines read them.
#include <filesystem>
#include <fstream>

#include "helpers.h"
#include "kvplan/check.h"

using namespace kvplan;
using kvplan::test::HasMessage;

namespace {
CheckResult real_check(const std::string& cmd, const std::string& gpu, std::uint64_t gpus = 0,
                       std::optional<std::string> model = std::nullopt) {
  CheckOptions o;
  o.gpu = gpu;
  o.gpus = gpus;
  o.model = model;
  return check_deployment(parse_launch_command(split_command_line(cmd)), o);
}
const CheckRequirement* real_check_named(const CheckResult& r, const std::string& name) {
  for (const auto& c : r.checks)
    if (c.name == name) return &c;
  return nullptr;
}
// The verdict with the modelled check left out: what the memory kvplan counts says.
bool real_memory_holds(const CheckResult& r) {
  for (const auto& c : r.checks)
    if (c.name != "modelled" && c.status != Verdict::pass) return false;
  return true;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(check_real_commands)

BOOST_AUTO_TEST_CASE(unmodelled_flags_are_uncertain_never_fail_while_the_memory_holds) {
  // vllm-project/recipes@1108854468aa1fee754efc885fb452293c96dedb Qwen/Qwen2.5-VL.md
  // https://github.com/vllm-project/recipes/blob/main/Qwen/Qwen2.5-VL.md ("Qwen2.5-VL-7B-Instruct on
  // 4xA100 with DP=4"): 15.2 GiB of weights on an 80 GB A100, 0.9 of it budgeted.
  const std::string vl =
      R"(vllm serve Qwen/Qwen2.5-VL-7B-Instruct  --host 0.0.0.0 --port 8000 --data-parallel-size 4 --limit-mm-per-prompt '{"image":2,"video":0}')";
  auto r = real_check(vl, "A100-80GB", 4);
  BOOST_TEST((r.verdict == Verdict::uncertain));
  BOOST_TEST(r.starts);
  BOOST_TEST(real_memory_holds(r));
  const auto* m = real_check_named(r, "modelled");
  BOOST_REQUIRE(m);
  BOOST_TEST((m->status == Verdict::uncertain));
  BOOST_TEST(m->message.find("--limit-mm-per-prompt") != std::string::npos);
  BOOST_TEST(m->message.find("encoder") != std::string::npos);  // why: the encoder profile / cache
  BOOST_TEST(r.margin.find("without the flags kvplan does not model") != std::string::npos);
  // The same command without the flag: the memory kvplan counts passes.
  auto without = real_check("vllm serve Qwen/Qwen2.5-VL-7B-Instruct  --host 0.0.0.0 --port 8000 --data-parallel-size 4",
                            "A100-80GB", 4);
  BOOST_TEST((without.verdict == Verdict::pass));
  BOOST_TEST(without.kv_cache_tokens == r.kv_cache_tokens);

  // sgl-project/sglang@067ad4d335bbd6da15d4a83a6f257cfa9e0f6be0 docs/advanced_features/speculative_decoding.md
  // https://docs.sglang.io/advanced_features/speculative_decoding.html ("Standalone Speculative
  // Decoding (Small Draft Model)"): the draft model's weights and KV pool are not counted.
  const std::string standalone =
      "python3 -m sglang.launch_server --model Qwen/Qwen2.5-7B-Instruct --speculative-algorithm STANDALONE "
      "--speculative-draft-model-path Qwen/Qwen2.5-1.5B-Instruct --speculative-num-steps 4 --speculative-eagle-topk 2 "
      "--speculative-num-draft-tokens 7 --mem-fraction-static 0.7 --cuda-graph-max-bs 8 --log-level warning";
  auto s = real_check(standalone, "H100");
  BOOST_TEST((s.verdict == Verdict::uncertain));
  BOOST_TEST(real_memory_holds(s));
  const auto* sm = real_check_named(s, "modelled");
  BOOST_REQUIRE(sm);
  for (const char* flag : {"--speculative-algorithm", "--speculative-draft-model-path", "--speculative-num-draft-tokens"})
    BOOST_TEST(sm->message.find(flag) != std::string::npos);
  BOOST_TEST(sm->message.find("draft model") != std::string::npos);

  // The same page, "EAGLE-3 Decoding": meta-llama/Meta-Llama-3.1-8B-Instruct is the pre-rename id
  // of meta-llama/Llama-3.1-8B-Instruct (the same config.json), given as --model.
  const std::string eagle3 =
      "python3 -m sglang.launch_server --model meta-llama/Meta-Llama-3.1-8B-Instruct --speculative-algorithm EAGLE3 "
      "--speculative-draft-model-path jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B --speculative-num-steps 3 "
      "--speculative-eagle-topk 4 --speculative-num-draft-tokens 16 --mem-fraction-static 0.7 --cuda-graph-max-bs 8 "
      "--dtype float16 --log-level warning";
  auto e = real_check(eagle3, "H100", 0, std::string("meta-llama/Llama-3.1-8B-Instruct"));
  BOOST_TEST((e.verdict == Verdict::uncertain));
  BOOST_TEST(real_memory_holds(e));

  // Where the memory kvplan counts does not hold, the verdict still FAILs: 15.2 GiB of weights on
  // a 16 GB T4 (the recipe's command, one GPU).
  auto small = real_check(
      R"(vllm serve Qwen/Qwen2.5-VL-7B-Instruct --limit-mm-per-prompt '{"image":2,"video":0}' --dtype float16)", "T4");
  BOOST_TEST((small.verdict == Verdict::fail));
  BOOST_TEST(!real_memory_holds(small));
  BOOST_TEST((real_check_named(small, "modelled")->status == Verdict::uncertain));
}

BOOST_AUTO_TEST_SUITE_END()
