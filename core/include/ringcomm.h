/* ringcomm's C API: a ringcomm::Session for C, Fortran (ISO_C_BINDING) and other languages.
 *
 *   #define CHECK(call) do { ringcomm_status s_ = (call); if (s_) ringcomm_exit_on_error(s_); } while (0)
 *   ringcomm_settings no_settings = {0};
 *   ringcomm_session session = {0};
 *   ringcomm_array histogram = {0};
 *   ringcomm_messages messages = {0};
 *   CHECK(ringcomm_session_create(no_settings, &session));
 *   CHECK(ringcomm_array_create(session, RINGCOMM_FLOAT64, 256, "histogram", &histogram));
 *   CHECK(ringcomm_messages_create(session, RINGCOMM_BYTE, 10000, &messages));
 *   CHECK(ringcomm_messages_run(messages, RINGCOMM_BYTE, 10000, rounds, produce, consume, &my_data));
 *   CHECK(ringcomm_array_sum_across_rings(histogram));
 *   CHECK(ringcomm_array_gather(histogram, RINGCOMM_FLOAT64, all, rank == 0 ? 256 : 0));
 *   CHECK(ringcomm_finalize());
 *
 * Every RINGCOMM_* setting applies as in C++ (docs/environment.md); ringcomm_settings_set overrides
 * one for this program. Calls that take a session, array or message set are collective over the
 * session's ranks: call them on every rank in the same order. Each returns RINGCOMM_OK or an error
 * code; ringcomm_last_error() says what went wrong (the message a C++ program would print).
 *
 * Handles are small values, not pointers: a freed or never-created handle is recognised and
 * refused with RINGCOMM_ERROR_INVALID_HANDLE instead of touching freed memory. Freeing a session
 * frees its arrays and message sets.
 *
 * Memory: on CPU builds a callback's message and ringcomm_array_slice point straight into ringcomm's
 * memory. On CUDA builds messages are staged through host buffers for the callbacks, and arrays
 * live on the device (ringcomm_array_slice refuses; gather works).
 */
#ifndef RINGCOMM_H
#define RINGCOMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ringcomm_status {
  RINGCOMM_OK = 0,
  RINGCOMM_ERROR = 1,                 /* reported alike on every rank (bad setting, disagreement, transport) */
  RINGCOMM_ERROR_LOCAL = 2,           /* on this rank only (timeout, a peer died): abort the job */
  RINGCOMM_ERROR_INVALID_HANDLE = 3,  /* freed or never created */
  RINGCOMM_ERROR_MESSAGE_SHAPE = 4,   /* element type or count differ from the handle's */
  RINGCOMM_ERROR_ARGUMENT = 5,        /* a null pointer, an unknown setting name … */
  RINGCOMM_ERROR_CALLBACK = 6         /* a produce or consume callback returned non-zero */
} ringcomm_status;

typedef enum ringcomm_type {
  RINGCOMM_BYTE = 1,        /* unsigned char */
  RINGCOMM_INT32 = 2,       /* int32_t */
  RINGCOMM_INT64 = 3,       /* int64_t */
  RINGCOMM_FLOAT32 = 4,     /* float */
  RINGCOMM_FLOAT64 = 5,     /* double */
  RINGCOMM_COMPLEX64 = 6,   /* two floats (real, imaginary) */
  RINGCOMM_COMPLEX128 = 7   /* two doubles */
} ringcomm_type;

/* Handles; {0} is "none". */
typedef struct ringcomm_settings { uint64_t id; } ringcomm_settings;
typedef struct ringcomm_session { uint64_t id; } ringcomm_session;
typedef struct ringcomm_array { uint64_t id; } ringcomm_array;
typedef struct ringcomm_messages { uint64_t id; } ringcomm_messages;

/* Programmatic settings (local). name: a SessionSettings field ("transport", "ring_size",
 * "memory_budget", "threads", "direction", "overlap", "timeout", "checkpoint", "checkpoint_every",
 * "host_chunk_bytes", "ucx_put_chunk", "mpi_gpu_aware", "nccl_register") or "ignore_environment"
 * ("1": only these and the defaults). A value set here wins over the environment variable; "" means
 * the default. Values are checked when the session is created. */
ringcomm_status ringcomm_settings_create(ringcomm_settings* settings);
ringcomm_status ringcomm_settings_set(ringcomm_settings settings, const char* name, const char* value);
ringcomm_status ringcomm_settings_free(ringcomm_settings* settings);

/* Collective over MPI_COMM_WORLD. Starts MPI (MPI_THREAD_MULTIPLE when walker threads are asked
 * for) and Kokkos unless the program did; settings may be {0}. */
ringcomm_status ringcomm_session_create(ringcomm_settings settings, ringcomm_session* session);
/* Collective; sets *session to {0}. */
ringcomm_status ringcomm_session_free(ringcomm_session* session);
ringcomm_status ringcomm_session_rank(ringcomm_session session, int* rank, int* ranks);
/* Walker threads per rank (RINGCOMM_THREADS). */
ringcomm_status ringcomm_session_threads(ringcomm_session session, int* threads);
/* Collective (it may decide the ring size). One line: transport, ranks, sub-rings, walker schedule;
 * cut to fit `size` bytes. */
ringcomm_status ringcomm_session_describe(ringcomm_session session, char* text, size_t size);

/* Collective: `entries` values of `type` cut over each sub-ring, zeroed. */
ringcomm_status ringcomm_array_create(ringcomm_session session, ringcomm_type type, size_t entries,
                                      const char* label, ringcomm_array* array);
/* This rank's slice: entries [*first, *first + *count) at *data (CPU builds). */
ringcomm_status ringcomm_array_slice(ringcomm_array array, ringcomm_type type, void** data, size_t* first,
                                     size_t* count);
/* Collective: sums slices of the same entries over the sub-rings. */
ringcomm_status ringcomm_array_sum_across_rings(ringcomm_array array);
/* Collective: the whole array into `out` (room for `entries` values) on world rank 0; other ranks
 * may pass NULL and 0. */
ringcomm_status ringcomm_array_gather(ringcomm_array array, ringcomm_type type, void* out, size_t entries);
ringcomm_status ringcomm_array_free(ringcomm_array* array);

typedef struct ringcomm_produce_info {
  int thread;           /* walker thread of this rank */
  size_t round;         /* round of that thread */
  uint64_t measurement; /* unique over the job: (round * threads + thread) * ranks + rank */
} ringcomm_produce_info;

/* Write the message (`count` elements of `type`); return 0, or non-zero to stop the run. */
typedef int (*ringcomm_produce_fn)(void* message, size_t count, ringcomm_type type,
                                   const ringcomm_produce_info* info, void* user_data);
/* Add a message to this rank's slice; origin: ring position of its producer. */
typedef int (*ringcomm_consume_fn)(const void* message, size_t count, ringcomm_type type, int origin,
                                   int thread, void* user_data);

/* Collective: the rings of every walker thread for messages of `count` elements of `type`. */
ringcomm_status ringcomm_messages_create(ringcomm_session session, ringcomm_type type, size_t count,
                                         ringcomm_messages* messages);
/* Collective: `rounds` rounds per walker thread. `type` and `count` must be the handle's (else
 * RINGCOMM_ERROR_MESSAGE_SHAPE, before anything runs). The callbacks of one rank never run at the
 * same time, even with several walker threads. */
ringcomm_status ringcomm_messages_run(ringcomm_messages messages, ringcomm_type type, size_t count, size_t rounds,
                                      ringcomm_produce_fn produce, ringcomm_consume_fn consume, void* user_data);
ringcomm_status ringcomm_messages_free(ringcomm_messages* messages);

/* What the last failing call of this thread reported; "" when none failed. */
const char* ringcomm_last_error(void);
/* "RINGCOMM_OK", "RINGCOMM_ERROR_INVALID_HANDLE", … */
const char* ringcomm_status_name(ringcomm_status status);

/* Frees every handle, then finalizes Kokkos and MPI if ringcomm started them. */
ringcomm_status ringcomm_finalize(void);
/* The error policy of ringcomm's programs: prints "ringcomm: error on rank R: <ringcomm_last_error()>"
 * and ends the process with status 1 (ringcomm_finalize first after an error every rank saw;
 * MPI_Abort after RINGCOMM_ERROR_LOCAL, so no peer waits). */
void ringcomm_exit_on_error(ringcomm_status status);

#ifdef __cplusplus
}
#endif

#endif /* RINGCOMM_H */
