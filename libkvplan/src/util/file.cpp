#include "util/file.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "kvplan/error.h"

namespace kvplan::detail {

std::string read_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // follows symlinks: the target must be regular
  if (ec || !fs::exists(st)) throw InputError::value(what, path, "an existing file");
  if (!fs::is_regular_file(st)) {
    const char* kind = fs::is_directory(st) ? "a directory" : fs::is_fifo(st) ? "a FIFO"
                       : fs::is_character_file(st) || fs::is_block_file(st) ? "a device" : "not a regular file";
    throw InputError::value(what, path, std::string("a regular file (this is ") + kind + ")");
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw InputError::value(what, path, "a readable file");
  if (size > max_bytes)
    throw InputError::value(what, path, "a file of at most " + std::to_string(max_bytes) + " bytes (it has " +
                                            std::to_string(size) + ")");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError::value(what, path, "a readable file");
  std::string text;
  text.reserve(static_cast<std::size_t>(size));
  // Read at most max_bytes + 1 so a file that grew after the size check is still refused.
  char buf[65536];
  while (in && text.size() <= max_bytes) {
    in.read(buf, sizeof buf);
    text.append(buf, static_cast<std::size_t>(in.gcount()));
  }
  if (text.size() > max_bytes)
    throw InputError::value(what, path, "a file of at most " + std::to_string(max_bytes) + " bytes");
  return text;
}

}  // namespace kvplan::detail
