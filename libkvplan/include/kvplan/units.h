#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace kvplan {

inline constexpr std::uint64_t KiB = 1024ull, MiB = KiB * 1024, GiB = MiB * 1024, TiB = GiB * 1024;
inline constexpr std::uint64_t KB = 1000ull, MB = KB * 1000, GB = MB * 1000, TB = GB * 1000;

// "123456", "1.5GiB", "80GB", "512MiB", "2 TB" -> bytes (decimal units are powers of 10,
// binary units powers of 2). Fractions are allowed but the result must be a whole byte count.
std::uint64_t parse_bytes(std::string_view text, std::string_view what = "size");

// A device memory size: as parse_bytes, but a unit is required ("24GB", "20GiB"): a bare "24"
// would be 24 bytes, never what a user typing a GPU's memory means.
std::uint64_t parse_memory_size(std::string_view text, std::string_view what);

// "4096", "32k" (= 32,768), "128K", "1M" (= 1,048,576): token counts use binary multipliers.
std::uint64_t parse_tokens(std::string_view text, std::string_view what = "tokens");

// "4.70 GB (4.37 GiB)": both units, each exactly what it says.
std::string format_bytes(std::uint64_t bytes);
std::string format_gb(std::uint64_t bytes, int decimals = 2);   // 10^9
std::string format_gib(std::uint64_t bytes, int decimals = 2);  // 2^30
// A signed byte figure in GiB: "-55.86 GiB" for a budget the fixed terms overran.
std::string format_signed_gib(std::int64_t bytes);
std::string format_mib(std::uint64_t bytes, int decimals = 2);  // 2^20
std::string format_count(std::uint64_t n);                      // 1,234,567
// "1 sequence", "2 sequences", "1,024 layers": the count and the noun in the right number
// (`plural` when the noun does not just take an "s").
std::string format_count(std::uint64_t n, std::string_view singular, std::string_view plural = {});
// Number formats of the engines' own log lines.
std::string format_fixed(double v, int decimals);           // Python "%.2f"
std::string format_llama_mib(std::uint64_t bytes);           // llama.cpp "%7.2f" of bytes / 2^20 as float

}  // namespace kvplan
