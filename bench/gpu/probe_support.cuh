// What the plain-CUDA probes of bench/gpu share: error checks, timing, their command line, a complex
// value and the JSON file they write.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(call)                                                                                    \
  do {                                                                                                 \
    cudaError_t e_ = (call);                                                                           \
    if (e_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));     \
      std::exit(1);                                                                                    \
    }                                                                                                  \
  } while (0)

// Median of `reps` timed calls of launch() (CUDA events), after one warm-up call.
template <class F>
double median_ms(int reps, F&& launch) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  launch();  // warm-up
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float x = 0;
    CHECK(cudaEventElapsedTime(&x, a, b));
    ms.push_back(x);
  }
  std::sort(ms.begin(), ms.end());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return ms[ms.size() / 2];
}

// A complex value as the probes store it (G_t, G_σ): real part, imaginary part.
template <class Real>
struct ProbeComplex {
  Real re, im;
};

struct ProbeOptions {
  int reps = 7;
  std::string json;
};

// Reads --reps N and --json FILE, prints `usage` (a printf format taking the program's name) for
// --help; own_flag(argument) takes a program's own flags and returns whether it did. Returns -1 to
// go on, else the status to exit with.
template <class OwnFlag>
int parse_probe_options(int argc, char** argv, const char* usage, ProbeOptions& options, OwnFlag own_flag) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf(usage, argv[0]);
      return 0;
    } else if (own_flag(a)) {
    } else if (a == "--reps" && i + 1 < argc) {
      options.reps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--json" && i + 1 < argc) {
      options.json = argv[++i];
    } else {
      std::fprintf(stderr, "%s: unknown argument %s (--help lists them)\n", argv[0], a.c_str());
      return 2;
    }
  }
  return -1;
}

// Writes `path` with write_body(f) and closes it; false (said on stderr) when it cannot be opened.
template <class Body>
bool write_json_file(const std::string& path, Body&& write_body) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  write_body(f);
  std::fclose(f);
  return true;
}
