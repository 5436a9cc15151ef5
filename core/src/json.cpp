#include "ringcomm/json.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "ringcomm/error.hpp"
#include "internal/file.hpp"

namespace ringcomm::json {

std::string quote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (byte < 0x20 || byte == 0x7f) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", byte);
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

namespace {

// The shortest of %.15g … %.17g that reads back as the same double.
std::string format_real(double value) {
  if (!std::isfinite(value)) return "null";
  char text[32];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

void newline(std::string& out, int indent, int depth) {
  if (indent < 0) return;
  out += '\n';
  out.append(static_cast<std::size_t>(indent * depth), ' ');
}

}  // namespace

Value Value::object() {
  Value v;
  v.kind_ = Kind::object;
  return v;
}

Value Value::array() {
  Value v;
  v.kind_ = Kind::array;
  return v;
}

Value& Value::operator[](const std::string& key) {
  if (kind_ == Kind::null) kind_ = Kind::object;
  if (kind_ != Kind::object) throw Error("json: indexing a value that is not an object with '" + key + "'");
  for (auto& [k, v] : object_)
    if (k == key) return v;
  object_.emplace_back(key, Value());
  return object_.back().second;
}

void Value::push_back(Value item) {
  if (kind_ == Kind::null) kind_ = Kind::array;
  if (kind_ != Kind::array) throw Error("json: appending to a value that is not an array");
  array_.push_back(std::move(item));
}

std::size_t Value::size() const {
  if (kind_ == Kind::array) return array_.size();
  if (kind_ == Kind::object) return object_.size();
  return 0;
}

std::string Value::dump(int indent) const {
  std::string out;
  write(out, indent, 0);
  return out;
}

void Value::write(std::string& out, int indent, int depth) const {
  switch (kind_) {
    case Kind::null: out += "null"; return;
    case Kind::boolean: out += boolean_ ? "true" : "false"; return;
    case Kind::integer: out += std::to_string(integer_); return;
    case Kind::unsigned_integer: out += std::to_string(unsigned_); return;
    case Kind::real: out += format_real(real_); return;
    case Kind::string: out += quote(string_); return;
    case Kind::array: {
      // Arrays of plain values stay on one line: long tables of numbers would otherwise take a line each.
      bool flat = true;
      for (const auto& item : array_) flat = flat && item.kind_ != Kind::array && item.kind_ != Kind::object;
      out += '[';
      for (std::size_t i = 0; i < array_.size(); ++i) {
        if (i) out += flat || indent < 0 ? ", " : ",";
        if (!flat) newline(out, indent, depth + 1);
        array_[i].write(out, indent, depth + 1);
      }
      if (!flat && !array_.empty()) newline(out, indent, depth);
      out += ']';
      return;
    }
    case Kind::object: {
      out += '{';
      for (std::size_t i = 0; i < object_.size(); ++i) {
        if (i) out += indent < 0 ? ", " : ",";
        newline(out, indent, depth + 1);
        out += quote(object_[i].first);
        out += ": ";
        object_[i].second.write(out, indent, depth + 1);
      }
      if (!object_.empty()) newline(out, indent, depth);
      out += '}';
      return;
    }
  }
}

void write_file(const std::string& path, const Value& value) {
  const std::string text = value.dump() + '\n';
  write_whole_file(path, {{text.data(), text.size()}});
}

}  // namespace ringcomm::json
