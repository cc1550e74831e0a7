#include "sim/config/toml_nesting.hpp"

#include <vector>

namespace edgetwin {
namespace {

// One pass over the text. The scanner knows where TOML has keys (the start of a top-level
// line, a table header, after '{' or ',' inside an inline table), counts their dotted
// segments there, and counts every bracket that opens a value; strings and comments are
// stepped over whole.
class NestingScanner {
 public:
  NestingScanner(std::string_view text, int limit) : text_(text), limit_(limit) {}

  std::optional<TextPlace> scan() {
    while (pos_ < text_.size() && !excess_) step(text_[pos_]);
    return excess_;
  }

 private:
  enum class Mode { line_start, header, key, value, rest_of_line };
  struct Open {
    char bracket;
    int depth;
  };

  void step(char c) {
    if (c == '#') return skip_comment();
    if (c == '"' || c == '\'') {
      if (mode_ == Mode::line_start) start_key();
      return skip_string(c);
    }
    if (c == '\n') return newline();
    switch (mode_) {
      case Mode::line_start: return at_line_start(c);
      case Mode::header: return in_header(c);
      case Mode::key: return in_key(c);
      case Mode::value: return in_value(c);
      case Mode::rest_of_line: return advance();
    }
  }

  void at_line_start(char c) {
    if (c == ' ' || c == '\t' || c == '\r') return advance();
    if (c == '[') {
      mode_ = Mode::header;
      segments_ = 1;
      check(segments_);
      return advance();
    }
    start_key();
  }

  void in_header(char c) {
    if (c == '.') {
      check(++segments_);
    } else if (c == ']') {
      header_depth_ = segments_;
      mode_ = Mode::rest_of_line;
    }
    advance();
  }

  void start_key() {
    mode_ = Mode::key;
    segments_ = 1;
    check(base() + segments_);
  }

  void in_key(char c) {
    if (segments_ == 0 && c != ' ' && c != '\t' && c != '\r' && c != '}') {
      segments_ = 1;
      check(base() + segments_);
    }
    if (c == '.') {
      check(base() + ++segments_);
    } else if (c == '=') {
      value_depth_ = base() + segments_;
      mode_ = Mode::value;
    } else if (c == '}') {
      close();
    }
    advance();
  }

  void in_value(char c) {
    if (c == '[' || c == '{') {
      open_.push_back({c, value_depth_ + 1});
      check(value_depth_ + 1);
      value_depth_ += 1;
      advance();
      if (c == '{') {
        mode_ = Mode::key;
        segments_ = 0;
      }
      return;
    }
    if (c == ']' || c == '}') {
      close();
    } else if (c == ',' && !open_.empty() && open_.back().bracket == '{') {
      mode_ = Mode::key;
      segments_ = 0;
    }
    advance();
  }

  // The depth keys and values at this point start from.
  int base() const { return open_.empty() ? header_depth_ : open_.back().depth; }

  void close() {
    if (!open_.empty()) open_.pop_back();
    value_depth_ = base();
    mode_ = open_.empty() ? Mode::rest_of_line : Mode::value;  // inside: a ',' or a closing bracket comes next
  }

  void newline() {
    if (open_.empty()) mode_ = Mode::line_start;
    advance();
  }

  void skip_comment() {
    while (pos_ < text_.size() && text_[pos_] != '\n') advance();
  }

  // "..." with escapes, '...' without, and their triple-quoted multi-line forms.
  void skip_string(char quote) {
    if (mode_ == Mode::key && segments_ == 0) check(base() + (segments_ = 1));
    const std::string_view triple = quote == '"' ? std::string_view("\"\"\"") : std::string_view("'''");
    const bool multi_line = text_.substr(pos_, 3) == triple;
    const std::size_t quotes = multi_line ? 3 : 1;
    for (std::size_t i = 0; i < quotes; ++i) advance();
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\\' && quote == '"') {
        advance();
        if (pos_ < text_.size()) advance();
        continue;
      }
      if (c == '\n' && !multi_line) return;  // unterminated: the newline ends the line as usual
      if (c == quote && !multi_line) {
        advance();
        return;
      }
      if (c == quote && text_.substr(pos_, 3) == triple) {
        // Up to two more quotes belong to the string: """a""""" is a"" (the TOML spec).
        for (std::size_t i = 0; i < 5 && pos_ < text_.size() && text_[pos_] == quote; ++i) advance();
        return;
      }
      advance();
    }
  }

  void check(int depth) {
    if (depth > limit_ && !excess_) excess_ = TextPlace{line_, column_};
  }

  void advance() {
    const char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {  // not a UTF-8 continuation byte
      ++column_;
    }
  }

  std::string_view text_;
  int limit_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
  Mode mode_ = Mode::line_start;
  int header_depth_ = 0;
  int segments_ = 0;
  int value_depth_ = 0;
  std::vector<Open> open_;
  std::optional<TextPlace> excess_;
};

}  // namespace

std::optional<TextPlace> toml_nesting_deeper_than(std::string_view text, int limit) {
  return NestingScanner(text, limit).scan();
}

}  // namespace edgetwin
