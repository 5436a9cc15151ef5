#pragma once
// Parsing of user settings (RINGCOMM_* environment variables and command-line values).
// Every parser names the setting and the allowed values in its error, because the user who sees it
// is usually looking at the output of a batch job, not at our source.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ringcomm::settings {

// The value of an environment variable, or nothing when it is unset or empty.
std::optional<std::string> env(const char* name);

long long parse_integer(const std::string& text, const std::string& setting, long long min, long long max);
double parse_real(const std::string& text, const std::string& setting, double min, double max);

// Sizes such as 4096, 64K, 16MiB, 1G (binary multiples).
std::size_t parse_bytes(const std::string& text, const std::string& setting);

// One of `allowed`, compared case-sensitively.
std::string parse_choice(const std::string& text, const std::string& setting,
                         const std::vector<std::string>& allowed);

// A comma-separated list of integers, e.g. "0,3,5".
std::vector<long long> parse_integer_list(const std::string& text, const std::string& setting,
                                          long long min, long long max);

std::vector<std::string> split(const std::string& text, char separator);

}  // namespace ringcomm::settings
