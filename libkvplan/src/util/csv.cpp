#include "util/csv.h"

#include "kvplan/error.h"

namespace kvplan::detail {

CsvReader::CsvReader(std::string_view text, std::string_view source) : text_(text), source_(source) {}

bool CsvReader::next(std::vector<std::string>& fields) {
  const auto fail = [&](std::size_t line, const std::string& what) {
    throw ConfigError(bounded_echo(source_, kMaxPathEchoBytes) + ":" + std::to_string(line) + ": not valid CSV: " + what);
  };
  for (;;) {
    fields.clear();
    if (pos_ >= text_.size()) return false;
    record_line_ = line_;
    bool blank = true;  // a line with nothing but spaces is no record
    for (;;) {
      std::string field;
      std::size_t i = pos_;
      while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\t')) ++i;
      if (i < text_.size() && text_[i] == '"') {
        blank = false;
        const std::size_t opened = line_;
        ++i;
        for (;;) {
          if (i >= text_.size()) fail(opened, "a quoted field that is never closed (RFC 4180: \"\" writes a quote)");
          const char c = text_[i++];
          if (c == '"') {
            if (i < text_.size() && text_[i] == '"') {
              field += '"';
              ++i;
              continue;
            }
            break;
          }
          if (c == '\n') ++line_;
          field += c;
        }
        while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\t' || text_[i] == '\r')) ++i;
        if (i < text_.size() && text_[i] != ',' && text_[i] != '\n')
          fail(line_, "text after a closing quote (a quoted field ends at a comma or the end of the line)");
      } else {
        std::size_t e = i;
        while (e < text_.size() && text_[e] != ',' && text_[e] != '\n') {
          if (text_[e] == '"') fail(line_, "a quote inside an unquoted field (RFC 4180: quote the whole field)");
          ++e;
        }
        std::size_t b = i, t = e;
        while (t > b && (text_[t - 1] == ' ' || text_[t - 1] == '\t' || text_[t - 1] == '\r')) --t;
        field.assign(text_.substr(b, t - b));
        if (!field.empty()) blank = false;
        i = e;
      }
      fields.push_back(std::move(field));
      if (i < text_.size() && text_[i] == ',') {
        blank = false;
        pos_ = i + 1;
        continue;
      }
      pos_ = i < text_.size() ? i + 1 : i;  // past the newline
      ++line_;
      break;
    }
    if (!blank) return true;
  }
}

}  // namespace kvplan::detail
