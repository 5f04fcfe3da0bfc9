// What other processes hold on a GPU (kvplan check --gpu-used): a size, or nvidia-smi's
// `--query-gpu=memory.used,memory.total --format=csv` output (docs/cli.md "kvplan check").
#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kvplan/error.h"
#include "kvplan/hardware.h"
#include "kvplan/text.h"
#include "kvplan/units.h"

namespace kvplan {

namespace {

std::vector<std::string> smi_cells(std::string_view line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= line.size(); ++i)
    if (i == line.size() || line[i] == ',') {
      out.push_back(trim_space(line.substr(start, i - start)));
      start = i + 1;
    }
  return out;
}

// "memory.used [MiB]" -> "MiB"; "memory.used" (no unit) -> "".
std::string smi_header_unit(const std::string& h) {
  const auto open = h.find('['), close = h.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return trim_space(std::string_view(h).substr(open + 1, close - open - 1));
}

std::uint64_t smi_value(const std::string& cell, const std::string& unit, std::string_view column, std::string_view where,
                        ByteRounding rounding) {
  if (cell.find("N/A") != std::string::npos)
    throw InputError::value(std::string(where) + " " + std::string(column), cell,
                            "a figure (nvidia-smi prints [N/A] on unified-memory devices such as GB10: give --gpu-used SIZE "
                            "with what other processes hold)");
  const bool has_unit = !cell.empty() && !std::isdigit(static_cast<unsigned char>(cell.back()));
  if (!has_unit && unit.empty())
    throw InputError::value(std::string(where) + " " + std::string(column), cell,
                            "a size with its unit, or a header naming the unit (memory.used [MiB])");
  return parse_bytes(has_unit ? cell : cell + " " + unit, std::string(where) + " " + std::string(column), rounding);
}

}  // namespace

GpuUsed read_nvidia_smi_memory_csv(std::string_view csv, std::string_view source) {
  std::vector<std::string> lines;
  {
    std::string cur;
    for (char c : csv) {
      if (c == '\n') {
        if (!trim_space(cur).empty()) lines.push_back(cur);
        cur.clear();
      } else if (c != '\r') {
        cur += c;
      }
    }
    if (!trim_space(cur).empty()) lines.push_back(cur);
  }
  const std::string expected_header =
      "the header line of `nvidia-smi --query-gpu=memory.used,memory.total --format=csv` "
      "(\"memory.used [MiB], memory.total [MiB]\"), then one row per GPU";
  if (lines.empty()) throw InputError::value(std::string(source), "an empty file", expected_header);
  const std::vector<std::string> header = smi_cells(lines[0]);
  std::size_t used_col = header.size(), total_col = header.size();
  for (std::size_t i = 0; i < header.size(); ++i) {
    const std::string h = ascii_lower(header[i]);
    if (h.rfind("memory.used", 0) == 0) used_col = i;
    if (h.rfind("memory.total", 0) == 0) total_col = i;
  }
  if (used_col == header.size() || total_col == header.size())
    throw InputError::value(std::string(source) + " line 1", lines[0].substr(0, 80), expected_header);
  if (lines.size() < 2) throw InputError::value(std::string(source), "a header and no GPU row", expected_header);
  const std::string used_unit = smi_header_unit(header[used_col]), total_unit = smi_header_unit(header[total_col]);
  GpuUsed best;
  std::size_t best_row = 0;
  for (std::size_t r = 1; r < lines.size(); ++r) {
    const std::vector<std::string> cells = smi_cells(lines[r]);
    const std::string where = std::string(source) + " line " + std::to_string(r + 1);
    if (cells.size() != header.size())
      throw InputError::value(where, lines[r].substr(0, 80), std::to_string(header.size()) + " comma-separated columns, as the header names");
    const std::uint64_t used = smi_value(cells[used_col], used_unit, "memory.used", where, ByteRounding::up);
    const std::uint64_t total = smi_value(cells[total_col], total_unit, "memory.total", where, ByteRounding::down);
    if (used > total) throw InputError::value(where + " memory.used", cells[used_col], "at most memory.total (" + cells[total_col] + ")");
    if (r == 1 || used > best.used_bytes) {
      best.used_bytes = used;
      best.total_bytes = total;
      best_row = r;
    }
  }
  const std::size_t gpus = lines.size() - 1;
  best.basis = "nvidia-smi " + std::string(source) + ": memory.used " + format_gib(best.used_bytes) + " of " + format_gib(*best.total_bytes) +
               (gpus > 1 ? " (GPU " + std::to_string(best_row - 1) + ", the most used of " + std::to_string(gpus) + ")" : "");
  return best;
}

GpuUsed parse_gpu_used(std::string_view text, std::string_view what) {
  const std::string t = trim_space(text);
  if (!t.empty() && t[0] == '@') {
    const std::string path = t.substr(1);
    std::ifstream in(path);
    if (path.empty() || !in)
      throw InputError::value(std::string(what), t, "@FILE naming a readable file (nvidia-smi --query-gpu=memory.used,memory.total --format=csv > FILE)");
    std::stringstream ss;
    ss << in.rdbuf();
    return read_nvidia_smi_memory_csv(ss.str(), path);
  }
  GpuUsed g;
  g.used_bytes = parse_bytes(t, what, ByteRounding::up);  // a cost: a fractional byte rounds up
  g.basis = std::string(what) + " " + t;
  return g;
}

}  // namespace kvplan
