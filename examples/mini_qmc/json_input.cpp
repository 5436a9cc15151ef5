#include "json_input.hpp"

#include <cctype>
#include <fstream>
#include <sstream>

#include "ringcomm/error.hpp"
#include "ringcomm/settings.hpp"

namespace mini_qmc {

// Recursive descent over the text; leaves go straight into the InputFile's map.
class JsonReader {
 public:
  JsonReader(const std::string& text, InputFile& out) : text_(text), out_(out) {}

  void document() {
    skip_space();
    object("");
    skip_space();
    if (position_ != text_.size()) fail("the end of the file after the top-level object");
  }

 private:
  [[noreturn]] void fail(const std::string& expected) const {
    int line = 1;
    for (std::size_t i = 0; i < position_ && i < text_.size(); ++i) line += text_[i] == '\n';
    throw ringcomm::Error(out_.source_ + ":" + std::to_string(line) + ": expected " + expected);
  }

  void skip_space() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_]))) ++position_;
  }

  bool take(char c) {
    skip_space();
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!take(c)) fail(std::string("'") + c + "'");
  }

  std::string string_literal() {
    expect('"');
    std::string value;
    while (position_ < text_.size() && text_[position_] != '"') {
      char c = text_[position_++];
      if (c == '\\') {
        if (position_ >= text_.size()) break;
        const char escaped = text_[position_++];
        const std::string plain = "\"\\/";
        if (plain.find(escaped) != std::string::npos) c = escaped;
        else if (escaped == 'n') c = '\n';
        else if (escaped == 't') c = '\t';
        else fail("one of the escapes \\\" \\\\ \\/ \\n \\t (others are not supported)");
      }
      value += c;
    }
    if (position_ >= text_.size()) fail("a closing '\"'");
    ++position_;
    return value;
  }

  std::string number_literal() {
    skip_space();
    const std::size_t start = position_;
    while (position_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[position_])) ||
                                        std::string("+-.eE").find(text_[position_]) != std::string::npos))
      ++position_;
    if (start == position_) fail("a number");
    return text_.substr(start, position_ - start);
  }

  void object(const std::string& prefix) {
    expect('{');
    if (take('}')) return;
    do {
      skip_space();
      const std::string key = string_literal();
      expect(':');
      value(prefix.empty() ? key : prefix + "." + key);
    } while (take(','));
    expect('}');
  }

  void value(const std::string& path) {
    skip_space();
    if (position_ >= text_.size()) fail("a value for '" + path + "'");
    InputFile::Leaf leaf{InputFile::Kind::number, {}, {}};
    const char c = text_[position_];
    if (c == '{') return object(path);
    if (c == '"') {
      leaf.kind = InputFile::Kind::string;
      leaf.text = string_literal();
    } else if (c == '[') {
      ++position_;
      leaf.kind = InputFile::Kind::number_array;
      if (!take(']')) {
        do leaf.numbers.push_back(number_literal());
        while (take(','));
        expect(']');
      }
    } else if (text_.compare(position_, 4, "true") == 0 || text_.compare(position_, 5, "false") == 0) {
      leaf.kind = InputFile::Kind::boolean;
      leaf.text = text_[position_] == 't' ? "true" : "false";
      position_ += leaf.text.size();
    } else {
      leaf.text = number_literal();
    }
    if (!out_.leaves_.emplace(path, std::move(leaf)).second) fail("no second value for '" + path + "'");
  }

  const std::string& text_;
  InputFile& out_;
  std::size_t position_ = 0;
};

InputFile InputFile::parse(const std::string& text, const std::string& source_name) {
  InputFile input;
  input.source_ = source_name;
  JsonReader(text, input).document();
  return input;
}

InputFile InputFile::read(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw ringcomm::Error("cannot open the input file '" + path + "' (--input FILE)");
  std::ostringstream text;
  text << file.rdbuf();
  return parse(text.str(), path);
}

const InputFile::Leaf* InputFile::find(const std::string& path, Kind expected) const {
  const auto at = leaves_.find(path);
  if (at == leaves_.end()) return nullptr;
  read_.insert(path);
  if (at->second.kind != expected) {
    static const char* const names[] = {"a number", "a string", "true or false", "an array of numbers"};
    throw ringcomm::Error(source_ + ": '" + path + "' must be " + names[static_cast<int>(expected)]);
  }
  return &at->second;
}

double InputFile::real(const std::string& path, double fallback, double min, double max) const {
  const Leaf* leaf = find(path, Kind::number);
  return leaf ? ringcomm::settings::parse_real(leaf->text, source_ + ": " + path, min, max) : fallback;
}

long long InputFile::integer(const std::string& path, long long fallback, long long min, long long max) const {
  const Leaf* leaf = find(path, Kind::number);
  return leaf ? ringcomm::settings::parse_integer(leaf->text, source_ + ": " + path, min, max) : fallback;
}

std::string InputFile::text(const std::string& path, const std::string& fallback) const {
  const Leaf* leaf = find(path, Kind::string);
  return leaf ? leaf->text : fallback;
}

std::vector<int> InputFile::integers(const std::string& path, const std::vector<int>& fallback, int min,
                                     int max) const {
  const Leaf* leaf = find(path, Kind::number_array);
  if (!leaf) return fallback;
  std::vector<int> values;
  for (const std::string& number : leaf->numbers)
    values.push_back(static_cast<int>(ringcomm::settings::parse_integer(number, source_ + ": " + path, min, max)));
  return values;
}

void InputFile::reject_unread_keys() const {
  std::string unknown;
  for (const auto& entry : leaves_)
    if (!read_.count(entry.first)) unknown += (unknown.empty() ? "" : ", ") + entry.first;
  if (!unknown.empty()) throw ringcomm::Error(source_ + ": unknown keys (misspelt?): " + unknown);
}

}  // namespace mini_qmc
