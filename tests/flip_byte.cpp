// flip_byte FILE OFFSET: inverts the bits of one byte of FILE in place; a negative OFFSET counts
// from the end. For tests that damage a file on purpose (tests/checkpoint_restart.cmake).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

constexpr const char* kUsage = "usage: flip_byte FILE OFFSET\n";

int main(int argc, char** argv) {
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::printf("%sinverts the bits of the byte at OFFSET of FILE in place; a negative OFFSET counts from the end\n",
                kUsage);
    return 0;
  }
  if (argc != 3) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::fstream file(argv[1], std::ios::in | std::ios::out | std::ios::binary);
  file.seekg(0, std::ios::end);
  const long long size = file.tellg();
  long long offset = std::atoll(argv[2]);
  if (offset < 0) offset += size;
  if (!file || offset < 0 || offset >= size) {
    std::fprintf(stderr, "flip_byte: %s has no byte at offset %s\n", argv[1], argv[2]);
    return 1;
  }
  char byte = 0;
  file.seekg(offset);
  file.read(&byte, 1);
  byte = static_cast<char>(~byte);
  file.seekp(offset);
  file.write(&byte, 1);
  if (!file) {
    std::fprintf(stderr, "flip_byte: cannot rewrite %s\n", argv[1]);
    return 1;
  }
  std::printf("flip_byte: inverted byte %lld of %s\n", offset, argv[1]);
  return 0;
}
