/* The byte histogram of tests/consumer, in C through ringcomm.h: every walker thread of every rank
 * writes messages of bytes, a distributed array of 256 bins counts them, rank 0 checks the gathered
 * histogram against a serial count. Prints the schedule first; exit status 0 when it matches.
 *
 *   c_byte_histogram [--rounds N] [--set NAME=VALUE]… [--use-after-free | --wrong-type | --wrong-count]
 *
 * --set passes a setting through ringcomm_settings_set (it wins over RINGCOMM_*). The last three
 * provoke the errors the C API must report on every rank: a freed handle used again, a run whose
 * element type or count differ from its handle's. */
#include <ringcomm.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kBins = 256, kMessageBytes = 10000 };

/* Byte i of the message of measurement m; the same formula as tests/consumer/byte_histogram.cpp. */
static unsigned char pattern(uint64_t m, size_t i) {
  return (unsigned char)((i * (m + 1) + 31u * (m / 7) + i / 97) % 251);
}

struct Slice {
  double* bins;
  size_t first, count;
};

static int produce(void* message, size_t count, ringcomm_type type, const ringcomm_produce_info* info, void* user) {
  (void)type;
  (void)user;
  unsigned char* bytes = message;
  for (size_t i = 0; i < count; ++i) bytes[i] = pattern(info->measurement, i);
  return 0;
}

static int consume(const void* message, size_t count, ringcomm_type type, int origin, int thread, void* user) {
  (void)type;
  (void)origin;
  (void)thread;
  const struct Slice* slice = user;
  const unsigned char* bytes = message;
  for (size_t i = 0; i < count; ++i)
    if (bytes[i] >= slice->first && bytes[i] < slice->first + slice->count) slice->bins[bytes[i] - slice->first] += 1.0;
  return 0;
}

#define CHECK(call)                            \
  do {                                         \
    ringcomm_status status_ = (call);          \
    if (status_ != RINGCOMM_OK) ringcomm_exit_on_error(status_); \
  } while (0)

int main(int argc, char** argv) {
  size_t rounds = 3;
  int use_after_free = 0, wrong_type = 0, wrong_count = 0;
  ringcomm_settings settings = {0};
  CHECK(ringcomm_settings_create(&settings));
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0) {
      printf("c_byte_histogram [--rounds N] [--set NAME=VALUE]... [--use-after-free | --wrong-type | --wrong-count]\n"
             "The byte histogram of tests/consumer through ringcomm's C API; run under mpirun.\n");
      return 0;
    } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = (size_t)strtoul(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
      char* assignment = argv[++i];
      char* equals = strchr(assignment, '=');
      if (equals == NULL) {
        fprintf(stderr, "c_byte_histogram: --set needs NAME=VALUE, got %s\n", assignment);
        return 2;
      }
      *equals = '\0';
      CHECK(ringcomm_settings_set(settings, assignment, equals + 1));
    } else if (strcmp(argv[i], "--use-after-free") == 0) {
      use_after_free = 1;
    } else if (strcmp(argv[i], "--wrong-type") == 0) {
      wrong_type = 1;
    } else if (strcmp(argv[i], "--wrong-count") == 0) {
      wrong_count = 1;
    } else {
      fprintf(stderr, "c_byte_histogram: unknown option %s (see --help)\n", argv[i]);
      return 2;
    }
  }

  ringcomm_session session = {0};
  ringcomm_array histogram = {0};
  ringcomm_messages messages = {0};
  CHECK(ringcomm_session_create(settings, &session));
  CHECK(ringcomm_settings_free(&settings));
  int rank = 0, ranks = 1, threads = 1;
  CHECK(ringcomm_session_rank(session, &rank, &ranks));
  CHECK(ringcomm_session_threads(session, &threads));
  CHECK(ringcomm_array_create(session, RINGCOMM_FLOAT64, kBins, "byte histogram", &histogram));
  CHECK(ringcomm_messages_create(session, RINGCOMM_BYTE, kMessageBytes, &messages));
  char schedule[256];
  CHECK(ringcomm_session_describe(session, schedule, sizeof schedule));
  if (rank == 0) printf("c_byte_histogram: %s\n", schedule);

  struct Slice slice;
  CHECK(ringcomm_array_slice(histogram, RINGCOMM_FLOAT64, (void**)&slice.bins, &slice.first, &slice.count));
  if (use_after_free) {
    ringcomm_messages stale = messages;
    CHECK(ringcomm_messages_free(&messages));
    messages = stale;
  }
  CHECK(ringcomm_messages_run(messages, wrong_type ? RINGCOMM_FLOAT32 : RINGCOMM_BYTE,
                              kMessageBytes + (wrong_count && rank == ranks - 1 ? 1 : 0), rounds, produce, consume,
                              &slice));
  CHECK(ringcomm_array_sum_across_rings(histogram));
  double* all = rank == 0 ? calloc(kBins, sizeof(double)) : NULL;
  CHECK(ringcomm_array_gather(histogram, RINGCOMM_FLOAT64, all, rank == 0 ? kBins : 0));

  int ok = 1;
  const uint64_t measurements = (uint64_t)rounds * (uint64_t)ranks * (uint64_t)threads;
  if (rank == 0) {
    double expected[kBins] = {0};
    for (uint64_t m = 0; m < measurements; ++m)
      for (size_t i = 0; i < kMessageBytes; ++i) expected[pattern(m, i)] += 1.0;
    for (int b = 0; b < kBins; ++b) ok = ok && all[b] == expected[b];
    printf("c_byte_histogram: histogram of %llu messages x %d bytes %s\n", (unsigned long long)measurements,
           kMessageBytes, ok ? "matches" : "DIFFERS from the serial count");
    free(all);
  }
  CHECK(ringcomm_finalize());
  return ok ? 0 : 1;
}
