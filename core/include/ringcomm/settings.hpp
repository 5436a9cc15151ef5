#pragma once
// Parsing of user settings (RINGCOMM_* environment variables and command-line values).
// Every parser names the setting and the allowed values in its error, because the user who sees it
// is usually looking at the output of a batch job, not at our source. Values are taken as written:
// blanks around them, a '+' sign and negative zero are refused like any other garbage
// (tests/test_settings_fuzz.cpp holds the parsers to that).
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ringcomm::settings {

// The value of a setting in effect: the program's override when a ringcomm::Session holds one for
// `name` (SessionSettings, session_settings.hpp), otherwise the environment variable; nothing when
// unset or empty. Every RINGCOMM_* reader goes through here, so an override reaches the backends too.
std::optional<std::string> env(const char* name);

// The programmatic values that env() returns before the environment's, keyed by variable name; a
// value of "" stands for "unset" (the default applies, whatever the environment says). Installed by
// ringcomm::Session for its lifetime; only one set at a time (a second install throws).
void install_overrides(std::vector<std::pair<std::string, std::string>> overrides);
void remove_overrides();

// -?[0-9]+ within [min, max].
long long parse_integer(const std::string& text, const std::string& setting, long long min, long long max);
// Decimal notation with an optional exponent (2, 0.5, 1e-3) within [min, max]; no inf, nan or hex.
double parse_real(const std::string& text, const std::string& setting, double min, double max);

// Sizes such as 4096, 64K, 16MiB, 1G (binary multiples).
std::size_t parse_bytes(const std::string& text, const std::string& setting);

// One of `allowed`, compared case-sensitively.
std::string parse_choice(const std::string& text, const std::string& setting,
                         const std::vector<std::string>& allowed);

// A comma-separated list of integers, e.g. "0,3,5" (blanks around the commas are allowed).
std::vector<long long> parse_integer_list(const std::string& text, const std::string& setting,
                                          long long min, long long max);

// A user's value as it may be shown in a one-line message: at most 80 characters (then its length),
// control and non-ASCII bytes escaped as \xNN.
std::string shown_value(const std::string& text);

// The parts between separators, each with surrounding blanks removed.
std::vector<std::string> split(const std::string& text, char separator);

}  // namespace ringcomm::settings
