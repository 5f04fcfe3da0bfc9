#include "kvplan/files.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kvplan/error.h"

namespace kvplan {

namespace {
std::string kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}
}  // namespace

std::string read_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what) {
  const std::string w(what);
  struct stat st {};
  // stat() first: opening a FIFO for reading blocks until a writer appears.
  if (::stat(path.c_str(), &st) != 0)
    throw InputError::value(w, path, std::string("a readable regular file (") + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode)) throw InputError::value(w, path, "a regular file, not " + kind_of(st.st_mode));
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    throw InputError::value(w, path, "a file of at most " + std::to_string(max_bytes) + " bytes (it has " +
                                         std::to_string(st.st_size) + ")");
  // O_NONBLOCK: should the path be swapped for a FIFO between stat and open, open does not block.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError::value(w, path, std::string("a readable regular file (") + std::strerror(errno) + ")");
  struct stat st2 {};
  if (::fstat(fd, &st2) != 0 || !S_ISREG(st2.st_mode)) {
    ::close(fd);
    throw InputError::value(w, path, "a regular file, not " + kind_of(st2.st_mode));
  }
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      throw InputError::value(w, path, std::string("a readable regular file (") + std::strerror(e) + ")");
    }
    if (n == 0) break;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      ::close(fd);
      throw InputError::value(w, path, "a file of at most " + std::to_string(max_bytes) + " bytes");
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

std::optional<std::filesystem::path> contained_path(const std::filesystem::path& base, const std::filesystem::path& name) {
  namespace fs = std::filesystem;
  if (name.empty() || name.is_absolute() || name.has_root_name() || name.has_root_directory()) return std::nullopt;
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(base, ec);
  if (ec) return std::nullopt;
  const fs::path full = fs::weakly_canonical(base / name, ec);
  if (ec) return std::nullopt;
  // Component-wise prefix: /a/bc is not inside /a/b.
  auto r = root.begin(), f = full.begin();
  for (; r != root.end(); ++r, ++f) {
    if (r->empty() && std::next(r) == root.end()) break;  // a trailing separator
    if (f == full.end() || *r != *f) return std::nullopt;
  }
  return full;
}

}  // namespace kvplan
