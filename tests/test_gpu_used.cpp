// kvplan check --gpu-used: memory other processes hold on the GPU, read as a size or from
// nvidia-smi's CSV, and taken where each engine's own accounting takes it.
#include <filesystem>
#include <fstream>

#include "helpers.h"
#include "kvplan/check.h"

using namespace kvplan;
using kvplan::test::HasMessage;

namespace {
CheckResult run_used(const std::string& cmd, const std::string& gpu, std::optional<std::string> used,
                     const std::string& version = "", std::uint64_t gpus = 0, std::optional<std::string> model = std::nullopt) {
  CheckOptions o;
  o.gpu = gpu;
  o.gpus = gpus;
  o.engine_version = version;
  o.model = model;
  if (used) o.gpu_used = parse_gpu_used(*used);
  return check_deployment(parse_launch_command(split_command_line(cmd)), o);
}
std::string smi_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "kvplan_test_gpu_used";
  std::filesystem::create_directories(dir);
  const auto p = dir / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}
const BudgetTerm* term(const CheckResult& r, const std::string& name) {
  for (const auto& t : r.budget)
    if (t.name == name) return &t;
  return nullptr;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(gpu_used)

BOOST_AUTO_TEST_CASE(sizes_and_nvidia_smi_files) {
  // A decimal with a unit, as nvidia-smi or a log prints it: a cost, so a fractional byte rounds up.
  BOOST_TEST(parse_gpu_used("14.99GiB").used_bytes == 16095389942ull);  // ceil(14.99 x 2^30)
  BOOST_TEST(parse_gpu_used("15360MiB").used_bytes == 15360ull * MiB);
  BOOST_TEST(parse_gpu_used("1000000").used_bytes == 1000000u);
  BOOST_TEST(!parse_gpu_used("1GiB").total_bytes.has_value());
  // `nvidia-smi --query-gpu=memory.used,memory.total --format=csv`: the most used GPU counts.
  const auto two = read_nvidia_smi_memory_csv("memory.used [MiB], memory.total [MiB]\n15360 MiB, 81920 MiB\n20480 MiB, 81920 MiB\n", "smi.csv");
  BOOST_TEST(two.used_bytes == 20480ull * MiB);
  BOOST_TEST(*two.total_bytes == 81920ull * MiB);
  BOOST_TEST(two.basis.find("GPU 1, the most used of 2") != std::string::npos);
  // --format=csv,nounits keeps the unit in the header; the columns may come in either order.
  const auto nounits = read_nvidia_smi_memory_csv("memory.total [MiB], memory.used [MiB]\r\n81559, 512\r\n", "smi.csv");
  BOOST_TEST(nounits.used_bytes == 512ull * MiB);
  BOOST_TEST(*nounits.total_bytes == 81559ull * MiB);
  // @FILE reads the file.
  const std::string f = smi_file("one.csv", "memory.used [MiB], memory.total [MiB]\n4 MiB, 81559 MiB\n");
  BOOST_TEST(parse_gpu_used("@" + f).used_bytes == 4ull * MiB);
  // Errors name the file, the line and what was expected.
  BOOST_CHECK_EXCEPTION(read_nvidia_smi_memory_csv("15360 MiB, 81920 MiB\n", "smi.csv"), InputError, HasMessage({"smi.csv line 1", "memory.used [MiB]"}));
  BOOST_CHECK_EXCEPTION(read_nvidia_smi_memory_csv("memory.used [MiB], memory.total [MiB]\n[N/A], [N/A]\n", "smi.csv"), InputError,
                        HasMessage({"line 2", "unified-memory", "--gpu-used SIZE"}));
  BOOST_CHECK_EXCEPTION(read_nvidia_smi_memory_csv("memory.used, memory.total\n100, 200\n", "smi.csv"), InputError, HasMessage({"unit"}));
  BOOST_CHECK_EXCEPTION(read_nvidia_smi_memory_csv("memory.used [MiB], memory.total [MiB]\n9 MiB, 8 MiB\n", "smi.csv"), InputError,
                        HasMessage({"at most memory.total"}));
  BOOST_CHECK_EXCEPTION(read_nvidia_smi_memory_csv("memory.used [MiB], memory.total [MiB]\n9 MiB\n", "smi.csv"), InputError,
                        HasMessage({"2 comma-separated columns"}));
  BOOST_CHECK_EXCEPTION(read_nvidia_smi_memory_csv("memory.used [MiB], memory.total [MiB]\n", "smi.csv"), InputError, HasMessage({"no GPU row"}));
  BOOST_CHECK_EXCEPTION(parse_gpu_used("@/nonexistent/smi.csv"), InputError, HasMessage({"--gpu-used", "readable file"}));
  BOOST_CHECK_EXCEPTION(parse_gpu_used("lots"), InputError, HasMessage({"--gpu-used"}));
}

BOOST_AUTO_TEST_CASE(file_from_another_gpu_is_refused) {
  // An RTX 4090's nvidia-smi (24,564 MiB) judged as an H100 (81,559 MiB) is the wrong file.
  const std::string f = smi_file("rtx.csv", "memory.used [MiB], memory.total [MiB]\n1024 MiB, 24564 MiB\n");
  BOOST_CHECK_EXCEPTION(run_used("vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192", "H100", "@" + f), InputError,
                        HasMessage({"memory.total", "H100", "--gpu-used SIZE"}));
  BOOST_CHECK_EXCEPTION(run_used("vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192", "H100", "90GiB"), InputError,
                        HasMessage({"less than the GPU"}));
}

BOOST_AUTO_TEST_CASE(sglang_probe_excludes_other_processes) {
  // SGLang sizes from the free memory it probes at start-up: rest = mfs x free - weights, so other
  // processes' U bytes take mfs x U from the pool (mfs depends on the total only).
  const std::string cmd = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --context-length 8192";
  const auto base = run_used(cmd, "H100", std::nullopt), used = run_used(cmd, "H100", "10GiB");
  const double mfs = std::get<SglangResult>(used.engine_result).mem_fraction_static;
  BOOST_TEST(mfs == std::get<SglangResult>(base.engine_result).mem_fraction_static);
  const double expected = mfs * static_cast<double>(10 * GiB) / 131072.0;  // 131,072 B a token (Llama-3.1-8B)
  BOOST_TEST(std::abs(static_cast<double>(base.kv_cache_tokens - used.kv_cache_tokens) - expected) <= 2.0);
  BOOST_REQUIRE(term(used, "other processes"));
  BOOST_TEST(term(used, "other processes")->high == 10 * GiB);
}

BOOST_AUTO_TEST_CASE(trtllm_peak_includes_other_processes) {
  // KvCacheCreator: peak = torch peak + (total - free - torch current), other processes included;
  // KV = (total - peak) x 0.9, so U bytes elsewhere take 0.9 x U.
  const std::string cmd = "trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 8192";
  const auto base = run_used(cmd, "H100", std::nullopt), used = run_used(cmd, "H100", "10GiB");
  BOOST_TEST(std::abs(static_cast<double>(base.kv_cache_tokens - used.kv_cache_tokens) - 0.9 * 10 * 1024 * 8) <= 2.0);  // 73,728
}

BOOST_AUTO_TEST_CASE(vllm_by_version) {
  const std::string cmd = "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192";
  // Latest: the budget is utilization x total less this process's memory (memory_profiling from
  // the init snapshot): 2 GiB elsewhere leaves the KV cache as it is and fits outside the 10 %.
  const auto latest = run_used(cmd, "H100", std::nullopt), small = run_used(cmd, "H100", "2GiB");
  BOOST_TEST(small.kv_cache_tokens == latest.kv_cache_tokens);
  BOOST_TEST(small.starts);
  BOOST_TEST(!term(small, "other processes"));
  // ... but init_device refuses when free memory is under utilization x total: 0.9 x 79.1 GiB
  // cannot be free with 10 GiB held elsewhere.
  const auto big = run_used(cmd, "H100", "10GiB");
  BOOST_TEST(!big.starts);
  BOOST_TEST((big.verdict == Verdict::fail));
  BOOST_TEST(big.reasons.at(0).find("other processes hold 10.00 GiB") != std::string::npos);
  BOOST_TEST(big.reasons.at(0).find("less than desired GPU memory utilization (0.90") != std::string::npos);
  // V1 0.8 / 0.9 (before PR #19312): other processes counted as non-torch memory, taken from the
  // budget one for one: 2 GiB = 1,024 blocks of 16 tokens x 131,072 B.
  const auto old0 = run_used(cmd, "H100", std::nullopt, "0.8.5"), old2 = run_used(cmd, "H100", "2GiB", "0.8.5");
  BOOST_TEST(old0.kv_cache_tokens - old2.kv_cache_tokens >= 1024u * 16 - 16);
  BOOST_TEST(old0.kv_cache_tokens - old2.kv_cache_tokens <= 1024u * 16 + 16);
  BOOST_REQUIRE(term(old2, "other processes"));
  // V0: neither (memory_profiling's baseline excludes them); only the headroom outside the budget.
  const auto v0a = run_used(cmd, "H100", std::nullopt, "0.6.3"), v0b = run_used(cmd, "H100", "2GiB", "0.6.3");
  BOOST_TEST(v0a.kv_cache_tokens == v0b.kv_cache_tokens);
  BOOST_TEST(v0b.starts);
}

BOOST_AUTO_TEST_CASE(llama_cpp_and_headroom) {
  // llama.cpp allocates everything on the device: 70 GiB elsewhere leaves no room for 16 GB of
  // weights on an H100.
  const std::string cmd = "llama-server -m x.gguf -ngl 99 -c 8192";
  const auto r = run_used(cmd, "H100", "70GiB", "", 0, "meta-llama/Llama-3.1-8B");
  BOOST_TEST(!r.starts);
  BOOST_TEST((r.verdict == Verdict::fail));
  BOOST_TEST(run_used(cmd, "H100", "1GiB", "", 0, "meta-llama/Llama-3.1-8B").starts);
}

BOOST_AUTO_TEST_SUITE_END()
