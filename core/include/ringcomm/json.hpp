#pragma once
// A small JSON value for the machine-readable output of ringcomm's programs (ringcomm-info --json,
// ring_compare's results, benchmark tables). Writing only: nothing in ringcomm reads JSON back.
//
//   json::Value run = json::Value::object();
//   run["transport"] = transport.name();
//   run["seconds"] = 0.25;
//   json::Value all = json::Value::object();
//   all["runs"].push_back(run);
//   std::cout << all.dump();
//
// Objects keep their keys in insertion order so that files read naturally and diff cleanly.
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ringcomm::json {

// `text` as a quoted JSON string: quotes, backslashes and control characters escaped. Other bytes are
// copied, so UTF-8 stays UTF-8.
std::string quote(const std::string& text);

class Value {
 public:
  enum class Kind { null, boolean, integer, unsigned_integer, real, string, array, object };

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : kind_(Kind::boolean), boolean_(b) {}
  Value(double d) : kind_(Kind::real), real_(d) {}
  Value(float f) : Value(static_cast<double>(f)) {}
  Value(const char* s) : kind_(Kind::string), string_(s) {}
  Value(std::string s) : kind_(Kind::string), string_(std::move(s)) {}
  template <class Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
  Value(Int i) {
    if constexpr (std::is_signed_v<Int>) {
      kind_ = Kind::integer;
      integer_ = static_cast<std::int64_t>(i);
    } else {
      kind_ = Kind::unsigned_integer;
      unsigned_ = static_cast<std::uint64_t>(i);
    }
  }
  template <class T>
  Value(const std::vector<T>& items) : kind_(Kind::array) {
    for (const auto& item : items) array_.emplace_back(item);
  }

  static Value object();
  static Value array();

  Kind kind() const { return kind_; }

  // Object access; a null value becomes an empty object first. Adds the key when it is missing.
  Value& operator[](const std::string& key);
  // Array append; a null value becomes an empty array first.
  void push_back(Value item);
  std::size_t size() const;

  // Non-finite reals are written as null, since JSON has no spelling for them.
  // indent < 0: one line; otherwise pretty-printed with `indent` spaces per level.
  std::string dump(int indent = 2) const;

 private:
  void write(std::string& out, int indent, int depth) const;

  Kind kind_ = Kind::null;
  bool boolean_ = false;
  std::int64_t integer_ = 0;
  std::uint64_t unsigned_ = 0;
  double real_ = 0;
  std::string string_;
  std::vector<Value> array_;
  std::vector<std::pair<std::string, Value>> object_;
};

// Writes `value.dump()` and a final newline to `path`; throws a (local) ringcomm::Error naming the
// path when it cannot be written.
void write_file(const std::string& path, const Value& value);

}  // namespace ringcomm::json
