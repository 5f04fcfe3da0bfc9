#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace kvplan {

inline constexpr std::uint64_t KiB = 1024ull, MiB = KiB * 1024, GiB = MiB * 1024, TiB = GiB * 1024;
inline constexpr std::uint64_t KB = 1000ull, MB = KB * 1000, GB = MB * 1000, TB = GB * 1000;

// Which way a size with a unit rounds when it is not a whole number of bytes ("21.67GiB" is
// 23,268,061,511.68 bytes): a capacity (device memory) down, a cost (weights) up, so that the
// rounding never makes a deployment look better than the figure the user wrote.
enum class ByteRounding { up, down };

// "123456", "1.5GiB", "80GB", "512MiB", "2 TB", "21.67GiB" -> bytes (decimal units are powers of
// 10, binary units powers of 2). With a unit of KB/KiB or larger, up to 12 fractional digits are
// exact and a fractional byte rounds as `rounding` says (exactly: floor or ceiling of the exact
// rational value); a fraction of the byte unit itself ("0.3B", "1.5") is an error.
std::uint64_t parse_bytes(std::string_view text, std::string_view what = "size", ByteRounding rounding = ByteRounding::up);

// A device memory size: as parse_bytes rounding down, but a unit is required ("24GB", "20GiB",
// "21.67GiB"): a bare "24" would be 24 bytes, never what a user typing a GPU's memory means.
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
