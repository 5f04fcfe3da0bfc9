#pragma once
// Internal: the one CSV reader of every CSV kvplan reads (the Azure LLM inference traces,
// BurstGPT). RFC 4180 (https://www.rfc-editor.org/rfc/rfc4180#section-2): fields separated by
// commas, records by LF or CRLF; a field in double quotes may hold commas, line breaks and "" for
// one quote. Unquoted fields lose surrounding spaces and tabs (traces written by hand have them).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kvplan::detail {

class CsvReader {
 public:
  // `source` names the file in errors ("trace.csv:12: ...").
  CsvReader(std::string_view text, std::string_view source);
  // The next record that is not a blank line: false at the end. Throws ConfigError naming the
  // file and line for an unterminated quoted field, a quote inside an unquoted field or text
  // after a closing quote.
  bool next(std::vector<std::string>& fields);
  // The 1-based line on which the record last returned by next() starts.
  std::size_t line() const { return record_line_; }

 private:
  std::string_view text_;
  std::string source_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  std::size_t record_line_ = 0;
};

}  // namespace kvplan::detail
