#pragma once
// Reads the small JSON subset of mini_qmc's input file: nested objects whose leaves are numbers,
// strings, booleans or arrays of numbers. The tree is flattened to dotted paths ("model.U"), and every
// path the program reads is remembered, so that a misspelt key is reported instead of silently ignored.
//
//   InputFile input = InputFile::read("input.json");
//   double u = input.real("model.U", 4.0, 0.0, 100.0);
//   input.reject_unread_keys();
#include <map>
#include <set>
#include <string>
#include <vector>

namespace mini_qmc {

class InputFile {
 public:
  // Throws ringcomm::Error naming the file, line and what was expected.
  static InputFile parse(const std::string& text, const std::string& source_name);
  static InputFile read(const std::string& path);

  // Each returns `fallback` when the path is absent and throws ringcomm::Error naming the path when the
  // value has the wrong type or lies outside [min, max].
  double real(const std::string& path, double fallback, double min, double max) const;
  long long integer(const std::string& path, long long fallback, long long min, long long max) const;
  std::string text(const std::string& path, const std::string& fallback) const;
  std::vector<int> integers(const std::string& path, const std::vector<int>& fallback, int min, int max) const;

  // Throws ringcomm::Error listing the paths in the file that nothing read.
  void reject_unread_keys() const;

 private:
  enum class Kind { number, string, boolean, number_array };
  struct Leaf {
    Kind kind;
    std::string text;                 // the number, string or boolean as written
    std::vector<std::string> numbers; // for number_array
  };
  const Leaf* find(const std::string& path, Kind expected) const;

  std::string source_;
  std::map<std::string, Leaf> leaves_;
  mutable std::set<std::string> read_;
  friend class JsonReader;
};

}  // namespace mini_qmc
