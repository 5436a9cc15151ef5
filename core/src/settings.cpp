#include "ringcomm/settings.hpp"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "ringcomm/error.hpp"

namespace ringcomm::settings {

namespace {
// Read by every thread, written only while no ring runs (a Session's construction and destruction).
struct Overrides {
  bool installed = false;
  std::vector<std::pair<std::string, std::string>> values;
};
Overrides& overrides() {
  static Overrides store;
  return store;
}
}  // namespace

void install_overrides(std::vector<std::pair<std::string, std::string>> values) {
  if (overrides().installed)
    throw Error("another ringcomm::Session is alive in this process: one session at a time (its settings apply "
                "process-wide)");
  overrides() = {true, std::move(values)};
}

void remove_overrides() { overrides() = {}; }

std::optional<std::string> env(const char* name) {
  for (const auto& [key, value] : overrides().values)
    if (key == name) return value.empty() ? std::nullopt : std::optional<std::string>(value);
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

namespace {
std::string trimmed(const std::string& text) {
  std::size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  return text.substr(b, e - b);
}

// The rejected text as it can be shown in one line of a log: control and non-ASCII bytes escaped,
// and cut short, since it may be anything a user or a script put there.
std::string printable(const std::string& text) {
  constexpr std::size_t kShown = 80;
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < kShown; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte >= 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out += text[i];
    }
  }
  if (text.size() > kShown) out += "... (" + std::to_string(text.size()) + " characters)";
  return out;
}

[[noreturn]] void reject(const std::string& setting, const std::string& text, const std::string& allowed) {
  throw SettingError(setting + "='" + printable(text) + "' is not valid: expected " + allowed);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Digits from `at` on; returns where they end.
std::size_t skip_digits(const std::string& text, std::size_t at) {
  while (at < text.size() && is_digit(text[at])) ++at;
  return at;
}

// A sign is allowed only where it means something: "-0", "-0.0" and "+5" are refused, as a value
// spelled oddly is more likely a mistake than an intent.
bool is_negative_zero(const std::string& text) {
  if (text.empty() || text[0] != '-') return false;
  for (std::size_t i = 1; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i)
    if (text[i] != '0' && text[i] != '.') return false;
  return true;
}

// -?[0-9]+
bool is_integer_text(const std::string& text) {
  const std::size_t first = !text.empty() && text[0] == '-' ? 1 : 0;
  const std::size_t end = skip_digits(text, first);
  return end > first && end == text.size();
}

// -?([0-9]+(.[0-9]*)?|.[0-9]+)([eE][+-]?[0-9]+)?   (no inf, nan, hexadecimal or blanks)
bool is_decimal_text(const std::string& text) {
  std::size_t at = !text.empty() && text[0] == '-' ? 1 : 0;
  const std::size_t integer_end = skip_digits(text, at);
  std::size_t mantissa_digits = integer_end - at;
  at = integer_end;
  if (at < text.size() && text[at] == '.') {
    const std::size_t fraction_end = skip_digits(text, at + 1);
    mantissa_digits += fraction_end - at - 1;
    at = fraction_end;
  }
  if (mantissa_digits == 0) return false;
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    if (at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
    const std::size_t exponent_end = skip_digits(text, at);
    if (exponent_end == at) return false;
    at = exponent_end;
  }
  return at == text.size();
}
}  // namespace

long long parse_integer(const std::string& text, const std::string& setting, long long min, long long max) {
  const std::string allowed = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (!is_integer_text(text) || is_negative_zero(text)) reject(setting, text, allowed);
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || value < min || value > max) reject(setting, text, allowed);
  return value;
}

double parse_real(const std::string& text, const std::string& setting, double min, double max) {
  std::ostringstream allowed;
  allowed << "a number in [" << min << ", " << max << "]";
  if (!is_decimal_text(text) || is_negative_zero(text)) reject(setting, text, allowed.str());
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0' || !(value >= min && value <= max)) reject(setting, text, allowed.str());
  return value;
}

std::size_t parse_bytes(const std::string& text, const std::string& setting) {
  const std::string allowed = "a byte count such as 4096, 64K, 16MiB or 1G";
  const std::size_t digits = skip_digits(text, 0);
  if (digits == 0 || digits > 15) reject(setting, text, allowed);
  std::string unit = text.substr(digits);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  unsigned shift = 0;
  if (unit.empty() || unit == "B") shift = 0;
  else if (unit == "K" || unit == "KB" || unit == "KIB") shift = 10;
  else if (unit == "M" || unit == "MB" || unit == "MIB") shift = 20;
  else if (unit == "G" || unit == "GB" || unit == "GIB") shift = 30;
  else reject(setting, text, allowed);
  const unsigned long long value = std::stoull(text.substr(0, digits));
  if (value > (~0ull >> (shift + 1))) reject(setting, text, allowed);
  return static_cast<std::size_t>(value << shift);
}

std::string parse_choice(const std::string& text, const std::string& setting,
                         const std::vector<std::string>& allowed) {
  for (const auto& a : allowed)
    if (text == a) return a;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  reject(setting, text, "one of: " + list);
}

std::string shown_value(const std::string& text) { return printable(text); }

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string current;
  for (char c : text) {
    if (c == separator) {
      parts.push_back(trimmed(current));
      current.clear();
    } else {
      current += c;
    }
  }
  parts.push_back(trimmed(current));
  return parts;
}

std::vector<long long> parse_integer_list(const std::string& text, const std::string& setting,
                                          long long min, long long max) {
  std::vector<long long> values;
  for (const auto& part : split(text, ',')) values.push_back(parse_integer(part, setting, min, max));
  return values;
}

}  // namespace ringcomm::settings
