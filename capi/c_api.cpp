// The C API (ringcomm.h) over ringcomm::Session.
//
// Handles are ids into one table; ids are never reused, so a freed handle is recognised (it is below
// the next id but not in the table) instead of being followed into freed memory.
#include "ringcomm.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ringcomm/memory.hpp"
#include "ringcomm/runtime.hpp"
#include "ringcomm/session.hpp"
#include "ringcomm/settings.hpp"

namespace {

using namespace ringcomm;

// An error of the C layer itself, with its status.
struct ApiError : Error {
  ApiError(ringcomm_status s, const std::string& what) : Error(what), status(s) {}
  ringcomm_status status;
};

thread_local std::string last_error;

enum class Kind { settings, session, array, messages };
const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::settings: return "ringcomm_settings";
    case Kind::session: return "ringcomm_session";
    case Kind::array: return "ringcomm_array";
    case Kind::messages: return "ringcomm_messages";
  }
  return "handle";
}

struct Object {
  explicit Object(Kind k) : kind(k) {}
  virtual ~Object() = default;
  Kind kind;
  std::uint64_t session = 0;  // the session an array or message set belongs to
};

struct Table {
  std::mutex mutex;
  std::map<std::uint64_t, std::unique_ptr<Object>> objects;
  std::uint64_t next_id = 1;
};
Table& table() {
  static Table t;
  return t;
}

std::uint64_t add(std::unique_ptr<Object> object) {
  std::lock_guard<std::mutex> lock(table().mutex);
  const std::uint64_t id = table().next_id++;
  table().objects.emplace(id, std::move(object));
  return id;
}

template <class Derived>
Derived& find(std::uint64_t id, Kind kind) {
  std::lock_guard<std::mutex> lock(table().mutex);
  const auto it = table().objects.find(id);
  if (id == 0) throw ApiError(RINGCOMM_ERROR_INVALID_HANDLE, std::string(kind_name(kind)) + " handle is {0}: never created");
  if (it == table().objects.end())
    throw ApiError(RINGCOMM_ERROR_INVALID_HANDLE,
                   std::string(kind_name(kind)) + " handle " + std::to_string(id) +
                       (id < table().next_id ? " was already freed (use after free; freeing a session frees its arrays "
                                               "and message sets)"
                                             : " was never created"));
  if (it->second->kind != kind)
    throw ApiError(RINGCOMM_ERROR_INVALID_HANDLE, std::string("handle ") + std::to_string(id) + " is a " +
                                                      kind_name(it->second->kind) + ", not a " + kind_name(kind));
  return static_cast<Derived&>(*it->second);
}

// Removes `id` and, for a session, everything made from it (those first: they use the session).
void remove(std::uint64_t id) {
  std::vector<std::unique_ptr<Object>> doomed;
  {
    std::lock_guard<std::mutex> lock(table().mutex);
    for (auto it = table().objects.begin(); it != table().objects.end();)
      if (it->second->session == id) {
        doomed.push_back(std::move(it->second));
        it = table().objects.erase(it);
      } else {
        ++it;
      }
    const auto it = table().objects.find(id);
    if (it != table().objects.end()) {
      doomed.push_back(std::move(it->second));
      table().objects.erase(it);
    }
  }
  doomed.clear();  // outside the lock: destructors may be collective
}

void require(bool ok, const char* what) {
  if (!ok) throw ApiError(RINGCOMM_ERROR_ARGUMENT, what);
}

template <class Work>
ringcomm_status guarded(Work&& work) {
  try {
    work();
    last_error.clear();
    return RINGCOMM_OK;
  } catch (const ApiError& e) {
    last_error = e.what();
    return e.status;
  } catch (const Error& e) {
    last_error = e.what();
    return e.collective() ? RINGCOMM_ERROR : RINGCOMM_ERROR_LOCAL;
  } catch (const std::exception& e) {
    last_error = std::string("unexpected error: ") + e.what();
    return RINGCOMM_ERROR_LOCAL;
  }
}

// ---- types

template <class T>
struct Tag {
  using type = T;
};

const char* type_name(ringcomm_type type) {
  switch (type) {
    case RINGCOMM_BYTE: return "RINGCOMM_BYTE";
    case RINGCOMM_INT32: return "RINGCOMM_INT32";
    case RINGCOMM_INT64: return "RINGCOMM_INT64";
    case RINGCOMM_FLOAT32: return "RINGCOMM_FLOAT32";
    case RINGCOMM_FLOAT64: return "RINGCOMM_FLOAT64";
    case RINGCOMM_COMPLEX64: return "RINGCOMM_COMPLEX64";
    case RINGCOMM_COMPLEX128: return "RINGCOMM_COMPLEX128";
  }
  return "an unknown ringcomm_type";
}

template <class Visit>
void with_message_type(ringcomm_type type, Visit&& visit) {
  switch (type) {
    case RINGCOMM_BYTE: return visit(Tag<unsigned char>{});
    case RINGCOMM_INT32: return visit(Tag<std::int32_t>{});
    case RINGCOMM_INT64: return visit(Tag<std::int64_t>{});
    case RINGCOMM_FLOAT32: return visit(Tag<float>{});
    case RINGCOMM_FLOAT64: return visit(Tag<double>{});
    case RINGCOMM_COMPLEX64: return visit(Tag<Kokkos::complex<float>>{});
    case RINGCOMM_COMPLEX128: return visit(Tag<Kokkos::complex<double>>{});
  }
  throw ApiError(RINGCOMM_ERROR_ARGUMENT, "element type " + std::to_string(static_cast<int>(type)) +
                                              " is not a ringcomm_type");
}

// Distributed arrays are summed by MPI, so only the floating-point types.
template <class Visit>
void with_array_type(ringcomm_type type, Visit&& visit) {
  switch (type) {
    case RINGCOMM_FLOAT32: return visit(Tag<float>{});
    case RINGCOMM_FLOAT64: return visit(Tag<double>{});
    case RINGCOMM_COMPLEX64: return visit(Tag<Kokkos::complex<float>>{});
    case RINGCOMM_COMPLEX128: return visit(Tag<Kokkos::complex<double>>{});
    default: break;
  }
  throw ApiError(RINGCOMM_ERROR_ARGUMENT, std::string("arrays hold RINGCOMM_FLOAT32, RINGCOMM_FLOAT64, "
                                                      "RINGCOMM_COMPLEX64 or RINGCOMM_COMPLEX128, not ") +
                                              type_name(type));
}

void check_type(ringcomm_type expected, std::size_t expected_count, ringcomm_type given, std::size_t given_count,
                const std::string& what) {
  if (expected != given || expected_count != given_count)
    throw ApiError(RINGCOMM_ERROR_MESSAGE_SHAPE, what + ": the handle holds " + std::to_string(expected_count) +
                                                     " elements of " + type_name(expected) + " but the call gives " +
                                                     std::to_string(given_count) + " elements of " + type_name(given));
}

// ---- objects

struct SettingsObject : Object {
  SettingsObject() : Object(Kind::settings) {}
  SessionSettings settings;
};

// MPI and Kokkos when the C API started them.
std::unique_ptr<Runtime>& runtime() {
  static std::unique_ptr<Runtime> r;
  return r;
}

struct SessionObject : Object {
  SessionObject() : Object(Kind::session) {}
  std::unique_ptr<Session> session;
};

struct ArrayObject : Object {
  ArrayObject(ringcomm_type t, std::uint64_t owner) : Object(Kind::array), type(t) { session = owner; }
  ringcomm_type type;
  virtual std::size_t entries() const = 0;
  virtual void slice(void** data, std::size_t* first, std::size_t* count) = 0;
  virtual void sum_across_rings() = 0;
  virtual void gather(void* out, std::size_t entries) = 0;
};

template <class T>
struct TypedArray final : ArrayObject {
  TypedArray(ringcomm_type t, std::uint64_t owner, const Topology& topology, std::size_t entries, const std::string& label)
      : ArrayObject(t, owner), array(topology, entries, label) {
    Kokkos::deep_copy(array.local(), T{});
  }
  std::size_t entries() const override { return array.total(); }
  void slice(void** data, std::size_t* first, std::size_t* count) override {
    if (data_memory_kind() != MemoryKind::host)
      throw ApiError(RINGCOMM_ERROR_ARGUMENT, "ringcomm_array_slice: this CUDA build keeps arrays in device memory, "
                                              "which C code cannot read; use ringcomm_array_gather");
    *data = array.local().data();
    *first = array.range().begin;
    *count = array.range().size();
  }
  void sum_across_rings() override { array.sum_across_rings(); }
  void gather(void* out, std::size_t n) override {
    const std::vector<T> all = array.gather();
    if (!all.empty()) std::memcpy(out, all.data(), std::min(n, all.size()) * sizeof(T));
  }
  DistributedArray<T> array;
};

struct MessagesObject : Object {
  MessagesObject(ringcomm_type t, std::size_t n, std::uint64_t owner) : Object(Kind::messages), type(t), count(n) {
    session = owner;
  }
  ringcomm_type type;
  std::size_t count;
  virtual void run(std::size_t rounds, ringcomm_produce_fn produce, ringcomm_consume_fn consume, void* user) = 0;
};

template <class T>
struct TypedMessages final : MessagesObject {
  TypedMessages(ringcomm_type t, std::uint64_t owner, Session& session, std::size_t n)
      : MessagesObject(t, n, owner),
        rings(session.transport(), session.topology(session.message_needs(n * sizeof(T))), n, session.schedule()) {}

  void run(std::size_t rounds, ringcomm_produce_fn produce, ringcomm_consume_fn consume, void* user) override {
    const bool staged = data_memory_kind() != MemoryKind::host;
    const std::size_t bytes = count * sizeof(T);
    std::mutex callbacks;  // C callbacks of one rank never overlap
    rings.run(
        rounds,
        [&](const typename MessageRings<T>::Message& message, const ProduceContext& context) {
          const std::lock_guard<std::mutex> lock(callbacks);
          const ringcomm_produce_info info{context.thread, context.round, context.measurement};
          std::vector<T> host(staged ? count : 0);
          void* target = staged ? static_cast<void*>(host.data()) : static_cast<void*>(message.data());
          if (const int rc = produce(target, count, type, &info, user))
            throw ApiError(RINGCOMM_ERROR_CALLBACK, "the produce callback returned " + std::to_string(rc) +
                                                        " (walker thread " + std::to_string(context.thread) +
                                                        ", round " + std::to_string(context.round) + ")");
          if (staged) copy_bytes(message.data(), data_memory_kind(), host.data(), MemoryKind::host, bytes);
        },
        [&](const typename MessageRings<T>::ConstMessage& message, const ConsumeContext& context) {
          const std::lock_guard<std::mutex> lock(callbacks);
          std::vector<T> host(staged ? count : 0);
          if (staged) {
            context.exec.fence();
            copy_bytes(host.data(), MemoryKind::host, message.data(), data_memory_kind(), bytes);
          }
          const void* source = staged ? static_cast<const void*>(host.data()) : static_cast<const void*>(message.data());
          if (const int rc = consume(source, count, type, context.origin, context.thread, user))
            throw ApiError(RINGCOMM_ERROR_CALLBACK, "the consume callback returned " + std::to_string(rc) +
                                                        " (walker thread " + std::to_string(context.thread) +
                                                        ", message of ring position " + std::to_string(context.origin) +
                                                        ")");
        });
  }
  MessageRings<T> rings;
};

// Frees what `handle` names (checked first: a stale handle is reported, not followed) and sets it to {0}.
template <class Derived, class Handle>
ringcomm_status free_handle(Handle* handle, Kind kind, const std::string& function) {
  return guarded([&] {
    require(handle != nullptr, (function + ": the handle pointer is NULL").c_str());
    find<Derived>(handle->id, kind);
    remove(handle->id);
    handle->id = 0;
  });
}

bool mpi_running() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

}  // namespace

extern "C" {

ringcomm_status ringcomm_settings_create(ringcomm_settings* settings) {
  return guarded([&] {
    require(settings != nullptr, "ringcomm_settings_create: settings is NULL");
    settings->id = add(std::make_unique<SettingsObject>());
  });
}

ringcomm_status ringcomm_settings_set(ringcomm_settings settings, const char* name, const char* value) {
  return guarded([&] {
    require(name != nullptr && value != nullptr, "ringcomm_settings_set: name or value is NULL");
    SessionSettings& s = find<SettingsObject>(settings.id, Kind::settings).settings;
    const std::string key = name;
    if (key == "ignore_environment") {
      s.ignore_environment = ringcomm::settings::parse_choice(value, "ignore_environment", {"0", "1"}) == "1";
      return;
    }
    const std::pair<const char*, std::optional<std::string> SessionSettings::*> fields[] = {
        {"transport", &SessionSettings::transport},     {"ring_size", &SessionSettings::ring_size},
        {"memory_budget", &SessionSettings::memory_budget}, {"threads", &SessionSettings::threads},
        {"direction", &SessionSettings::direction},     {"overlap", &SessionSettings::overlap},
        {"timeout", &SessionSettings::timeout},         {"checkpoint", &SessionSettings::checkpoint},
        {"checkpoint_every", &SessionSettings::checkpoint_every},
        {"host_chunk_bytes", &SessionSettings::host_chunk_bytes},
        {"ucx_put_chunk", &SessionSettings::ucx_put_chunk}, {"mpi_gpu_aware", &SessionSettings::mpi_gpu_aware},
        {"nccl_register", &SessionSettings::nccl_register}};
    for (const auto& [field, member] : fields)
      if (key == field) {
        s.*member = std::string(value);
        return;
      }
    std::string known = "ignore_environment";
    for (const auto& field : fields) known += std::string(", ") + field.first;
    throw ApiError(RINGCOMM_ERROR_ARGUMENT, "ringcomm_settings_set: unknown setting '" + key + "' (known: " + known + ")");
  });
}

ringcomm_status ringcomm_settings_free(ringcomm_settings* settings) { return free_handle<SettingsObject>(settings, Kind::settings, "ringcomm_settings_free"); }

ringcomm_status ringcomm_session_create(ringcomm_settings settings, ringcomm_session* session) {
  return guarded([&] {
    require(session != nullptr, "ringcomm_session_create: session is NULL");
    const SessionSettings chosen =
        settings.id == 0 ? SessionSettings{} : find<SettingsObject>(settings.id, Kind::settings).settings;
    if (!runtime()) {
      int argc = 0;
      char** argv = nullptr;
      const int level = walker_threads_before_mpi(chosen) > 1 ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED;
      runtime() = std::make_unique<Runtime>(argc, argv, level);
    }
    auto object = std::make_unique<SessionObject>();
    object->session = std::make_unique<Session>(chosen);
    session->id = add(std::move(object));
  });
}

ringcomm_status ringcomm_session_free(ringcomm_session* session) { return free_handle<SessionObject>(session, Kind::session, "ringcomm_session_free"); }

ringcomm_status ringcomm_session_rank(ringcomm_session session, int* rank, int* ranks) {
  return guarded([&] {
    Session& s = *find<SessionObject>(session.id, Kind::session).session;
    if (rank) *rank = s.rank();
    if (ranks) *ranks = s.ranks();
  });
}

ringcomm_status ringcomm_session_threads(ringcomm_session session, int* threads) {
  return guarded([&] {
    require(threads != nullptr, "ringcomm_session_threads: threads is NULL");
    *threads = find<SessionObject>(session.id, Kind::session).session->schedule().threads;
  });
}

ringcomm_status ringcomm_session_describe(ringcomm_session session, char* text, std::size_t size) {
  return guarded([&] {
    require(text != nullptr && size > 0, "ringcomm_session_describe: no room for the text");
    const std::string line = find<SessionObject>(session.id, Kind::session).session->describe();
    std::snprintf(text, size, "%s", line.c_str());
  });
}

ringcomm_status ringcomm_array_create(ringcomm_session session, ringcomm_type type, std::size_t entries,
                                      const char* label, ringcomm_array* array) {
  return guarded([&] {
    require(array != nullptr, "ringcomm_array_create: array is NULL");
    Session& s = *find<SessionObject>(session.id, Kind::session).session;
    const std::string name = label ? label : "array";
    with_array_type(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      RingMemoryNeeds needs;
      needs.gt_entries = entries;
      needs.scalar_bytes = sizeof(T);
      array->id = add(std::make_unique<TypedArray<T>>(type, session.id, s.topology(needs), entries, name));
    });
  });
}

ringcomm_status ringcomm_array_slice(ringcomm_array array, ringcomm_type type, void** data, std::size_t* first,
                                     std::size_t* count) {
  return guarded([&] {
    require(data && first && count, "ringcomm_array_slice: data, first or count is NULL");
    auto& a = find<ArrayObject>(array.id, Kind::array);
    if (a.type != type)
      throw ApiError(RINGCOMM_ERROR_ARGUMENT, std::string("ringcomm_array_slice: the array holds ") +
                                                       type_name(a.type) + ", not " + type_name(type));
    a.slice(data, first, count);
  });
}

ringcomm_status ringcomm_array_sum_across_rings(ringcomm_array array) {
  return guarded([&] { find<ArrayObject>(array.id, Kind::array).sum_across_rings(); });
}

ringcomm_status ringcomm_array_gather(ringcomm_array array, ringcomm_type type, void* out, std::size_t entries) {
  return guarded([&] {
    auto& a = find<ArrayObject>(array.id, Kind::array);
    const bool root = comm_rank(MPI_COMM_WORLD) == 0;
    // Agreed on, so that a wrong call on rank 0 does not leave the others in the gather.
    collectively(MPI_COMM_WORLD, [&] {
      if (a.type != type || (root && (out == nullptr || entries != a.entries())))
        throw ApiError(RINGCOMM_ERROR_MESSAGE_SHAPE,
                       std::string("ringcomm_array_gather: the array holds ") + std::to_string(a.entries()) + " " +
                           type_name(a.type) + " values; the call gives room for " + std::to_string(entries) + " " +
                           type_name(type) + (out == nullptr && root ? " (out is NULL)" : ""));
    });
    a.gather(out, entries);
  });
}

ringcomm_status ringcomm_array_free(ringcomm_array* array) { return free_handle<ArrayObject>(array, Kind::array, "ringcomm_array_free"); }

ringcomm_status ringcomm_messages_create(ringcomm_session session, ringcomm_type type, std::size_t count,
                                         ringcomm_messages* messages) {
  return guarded([&] {
    require(messages != nullptr, "ringcomm_messages_create: messages is NULL");
    Session& s = *find<SessionObject>(session.id, Kind::session).session;
    with_message_type(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      messages->id = add(std::make_unique<TypedMessages<T>>(type, session.id, s, count));
    });
  });
}

ringcomm_status ringcomm_messages_run(ringcomm_messages messages, ringcomm_type type, std::size_t count,
                                      std::size_t rounds, ringcomm_produce_fn produce, ringcomm_consume_fn consume,
                                      void* user_data) {
  ringcomm_status shape = RINGCOMM_OK;
  const ringcomm_status status = guarded([&] {
    auto& m = find<MessagesObject>(messages.id, Kind::messages);
    // Every rank learns of a wrong call on any rank before the first ring step.
    try {
      collectively(MPI_COMM_WORLD, [&] {
        require(produce != nullptr && consume != nullptr, "ringcomm_messages_run: produce or consume is NULL");
        check_type(m.type, m.count, type, count, "ringcomm_messages_run");
      });
    } catch (const Error&) {
      shape = RINGCOMM_ERROR_MESSAGE_SHAPE;
      throw;
    }
    m.run(rounds, produce, consume, user_data);
  });
  return shape != RINGCOMM_OK ? shape : status;
}

ringcomm_status ringcomm_messages_free(ringcomm_messages* messages) { return free_handle<MessagesObject>(messages, Kind::messages, "ringcomm_messages_free"); }

const char* ringcomm_last_error(void) { return last_error.c_str(); }

const char* ringcomm_status_name(ringcomm_status status) {
  switch (status) {
    case RINGCOMM_OK: return "RINGCOMM_OK";
    case RINGCOMM_ERROR: return "RINGCOMM_ERROR";
    case RINGCOMM_ERROR_LOCAL: return "RINGCOMM_ERROR_LOCAL";
    case RINGCOMM_ERROR_INVALID_HANDLE: return "RINGCOMM_ERROR_INVALID_HANDLE";
    case RINGCOMM_ERROR_MESSAGE_SHAPE: return "RINGCOMM_ERROR_MESSAGE_SHAPE";
    case RINGCOMM_ERROR_ARGUMENT: return "RINGCOMM_ERROR_ARGUMENT";
    case RINGCOMM_ERROR_CALLBACK: return "RINGCOMM_ERROR_CALLBACK";
  }
  return "an unknown ringcomm_status";
}

ringcomm_status ringcomm_finalize(void) {
  return guarded([&] {
    std::vector<std::uint64_t> ids;
    {
      std::lock_guard<std::mutex> lock(table().mutex);
      for (const auto& entry : table().objects) ids.push_back(entry.first);
    }
    // Arrays and message sets before their sessions.
    for (auto it = ids.rbegin(); it != ids.rend(); ++it) remove(*it);
    runtime().reset();
  });
}

void ringcomm_exit_on_error(ringcomm_status status) {
  const int rank = mpi_running() ? comm_rank(MPI_COMM_WORLD) : 0;
  std::fprintf(stderr, "ringcomm: error on rank %d: %s (%s)\n", rank, ringcomm_last_error(), ringcomm_status_name(status));
  std::fflush(stderr);
  // RINGCOMM_ERROR and RINGCOMM_ERROR_MESSAGE_SHAPE were agreed on by every rank: end cleanly. Any
  // other may be this rank's alone, with peers waiting in a ring step: give the others a moment to
  // report the same, then abort the job.
  if (status == RINGCOMM_ERROR || status == RINGCOMM_ERROR_MESSAGE_SHAPE || !mpi_running()) {
    ringcomm_finalize();
    std::exit(1);
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

}  // extern "C"
