#include "ringcomm/settings.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "ringcomm/error.hpp"

namespace ringcomm::settings {

std::optional<std::string> env(const char* name) {
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

[[noreturn]] void reject(const std::string& setting, const std::string& text, const std::string& allowed) {
  throw Error(setting + "='" + text + "' is not valid: expected " + allowed);
}
}  // namespace

long long parse_integer(const std::string& text, const std::string& setting, long long min, long long max) {
  const std::string allowed = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  const std::string t = trimmed(text);
  if (t.empty()) reject(setting, text, allowed);
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(t.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || value < min || value > max) reject(setting, text, allowed);
  return value;
}

double parse_real(const std::string& text, const std::string& setting, double min, double max) {
  std::ostringstream allowed;
  allowed << "a number in [" << min << ", " << max << "]";
  const std::string t = trimmed(text);
  if (t.empty()) reject(setting, text, allowed.str());
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(t.c_str(), &end);
  if (errno != 0 || *end != '\0' || !(value >= min && value <= max)) reject(setting, text, allowed.str());
  return value;
}

std::size_t parse_bytes(const std::string& text, const std::string& setting) {
  const std::string allowed = "a byte count such as 4096, 64K, 16MiB or 1G";
  const std::string t = trimmed(text);
  std::size_t digits = 0;
  while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
  if (digits == 0 || digits > 15) reject(setting, text, allowed);
  std::string unit = t.substr(digits);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  unsigned shift = 0;
  if (unit.empty() || unit == "B") shift = 0;
  else if (unit == "K" || unit == "KB" || unit == "KIB") shift = 10;
  else if (unit == "M" || unit == "MB" || unit == "MIB") shift = 20;
  else if (unit == "G" || unit == "GB" || unit == "GIB") shift = 30;
  else reject(setting, text, allowed);
  const unsigned long long value = std::stoull(t.substr(0, digits));
  if (value > (~0ull >> (shift + 1))) reject(setting, text, allowed);
  return static_cast<std::size_t>(value << shift);
}

std::string parse_choice(const std::string& text, const std::string& setting,
                         const std::vector<std::string>& allowed) {
  const std::string t = trimmed(text);
  for (const auto& a : allowed)
    if (t == a) return a;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  reject(setting, text, "one of: " + list);
}

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
