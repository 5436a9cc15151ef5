#include "ringcomm/collective.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "ringcomm/backend/mpi_call.hpp"
#include "ringcomm/settings.hpp"

namespace ringcomm {

int comm_rank(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int comm_size(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}

void bounded_wait(MPI_Request& request, const char* call, MPI_Comm comm, MPI_Status* status) {
  wait_until(
      [&] {
        int done = 0;
        const int code = MPI_Test(&request, &done, status);
        if (code != MPI_SUCCESS) throw_mpi_error(code, call);
        return done != 0;
      },
      phase_timeout_seconds(),
      [&] {
        Stall stall;
        stall.phase = current_phase();
        stall.waiting_for = std::string(call) + " over " + std::to_string(comm_size(comm)) +
                            " ranks to complete (MPI does not say which ranks have not arrived; each that did "
                            "prints this line)";
        return stall;
      });
}

void allreduce_in_place(double* values, int count, MPI_Op op, MPI_Comm comm) {
  bounded("MPI_Iallreduce", comm,
          [&](MPI_Request* r) { return MPI_Iallreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, op, comm, r); });
}

void allreduce_in_place(unsigned long long* values, int count, MPI_Op op, MPI_Comm comm) {
  bounded("MPI_Iallreduce", comm, [&](MPI_Request* r) {
    return MPI_Iallreduce(MPI_IN_PLACE, values, count, MPI_UNSIGNED_LONG_LONG, op, comm, r);
  });
}

void barrier(MPI_Comm comm) {
  bounded("MPI_Ibarrier", comm, [&](MPI_Request* r) { return MPI_Ibarrier(comm, r); });
}

void sendrecv(const void* send, int send_count, MPI_Datatype send_type, int to, void* recv, int recv_count,
              MPI_Datatype recv_type, int from, int tag, MPI_Comm comm) {
  MPI_Request receive = MPI_REQUEST_NULL;
  check_mpi(MPI_Irecv(recv, recv_count, recv_type, from, tag, comm, &receive), "MPI_Irecv");
  bounded("MPI_Isend", comm,
          [&](MPI_Request* r) { return MPI_Isend(send, send_count, send_type, to, tag, comm, r); });
  bounded_wait(receive, "MPI_Irecv", comm);
}

void bounded_wait_started(int code, MPI_Request& request, const char* call, MPI_Comm comm, MPI_Status* status) {
  check_mpi(code, call);
  bounded_wait(request, call, comm, status);
}

std::vector<std::string> allgather_strings(MPI_Comm comm, const std::string& mine) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  int my_length = static_cast<int>(mine.size());
  std::vector<int> lengths(size);
  bounded("MPI_Iallgather", comm, [&](MPI_Request* r) {
    return MPI_Iallgather(&my_length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm, r);
  });
  std::vector<int> offsets(size, 0);
  for (int r = 1; r < size; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::string joined(static_cast<std::size_t>(offsets[size - 1] + lengths[size - 1]), '\0');
  bounded("MPI_Iallgatherv", comm, [&](MPI_Request* r) {
    return MPI_Iallgatherv(mine.data(), my_length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(), MPI_CHAR,
                           comm, r);
  });
  std::vector<std::string> all(size);
  for (int r = 0; r < size; ++r) all[r] = joined.substr(offsets[r], lengths[r]);
  return all;
}

void agree(MPI_Comm comm, bool ok, const std::string& reason_if_not) {
  int mine = ok ? 1 : 0;
  int all_ok = 0;
  bounded("MPI_Iallreduce", comm,
          [&](MPI_Request* r) { return MPI_Iallreduce(&mine, &all_ok, 1, MPI_INT, MPI_MIN, comm, r); });
  if (all_ok) return;
  const auto reasons = allgather_strings(comm, ok ? std::string() : reason_if_not);
  // Ranks failing for the same reason are listed together to keep messages short on many ranks.
  std::map<std::string, std::vector<int>> ranks_by_reason;
  for (int r = 0; r < static_cast<int>(reasons.size()); ++r)
    if (!reasons[r].empty()) ranks_by_reason[reasons[r]].push_back(r);
  // An error already agreed on over these ranks (nested collective steps) is passed on unchanged.
  static const std::string everyone = "all ranks: ";
  const auto& [only_reason, only_ranks] = *ranks_by_reason.begin();
  if (ranks_by_reason.size() == 1 && only_ranks.size() == reasons.size() && only_reason.rfind(everyone, 0) == 0)
    throw Error(only_reason, true);
  std::ostringstream msg;
  bool first = true;
  for (const auto& [reason, ranks] : ranks_by_reason) {
    if (!first) msg << "\n";
    first = false;
    msg << (ranks.size() == reasons.size() ? std::string("all ranks") : "rank");
    if (ranks.size() != reasons.size()) {
      msg << (ranks.size() > 1 ? "s " : " ");
      for (std::size_t i = 0; i < ranks.size() && i < 8; ++i) msg << (i ? "," : "") << ranks[i];
      if (ranks.size() > 8) msg << ",… (" << ranks.size() << " ranks)";
    }
    msg << ": " << reason;
  }
  throw Error(msg.str(), true);
}

void agree(MPI_Comm comm, bool ok, const std::string& reason_if_not, bool bad_setting) {
  try {
    agree(comm, ok, reason_if_not);
  } catch (const TimeoutError&) {
    throw;  // a peer did not arrive: no further collective with it
  } catch (const Error& e) {
    int mine = bad_setting ? 1 : 0;
    int any = 0;
    bounded("MPI_Iallreduce", comm,
            [&](MPI_Request* r) { return MPI_Iallreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm, r); });
    if (any) throw SettingError(e.what(), true);
    throw;
  }
}

namespace {
std::string encode(const std::vector<Field>& fields) {
  std::string out;
  for (const auto& f : fields) out += f.name + '\x1f' + f.value + '\x1e';
  return out;
}

// name -> value, in the order the names first appear.
std::vector<std::pair<std::string, std::string>> decode(const std::string& encoded) {
  std::vector<std::pair<std::string, std::string>> fields;
  std::size_t pos = 0;
  while (pos < encoded.size()) {
    const auto sep = encoded.find('\x1f', pos);
    const auto end = encoded.find('\x1e', pos);
    if (sep == std::string::npos || end == std::string::npos || sep > end) break;
    fields.emplace_back(encoded.substr(pos, sep - pos), encoded.substr(sep + 1, end - sep - 1));
    pos = end + 1;
  }
  return fields;
}

constexpr const char* kAbsent = "(not given)";
}  // namespace

void check_identical(MPI_Comm comm, const std::vector<Field>& fields, const std::string& context) {
  const auto all = allgather_strings(comm, encode(fields));
  // Ranks may even pass different names (code paths that diverged): every name any rank sent is
  // compared, and a rank that did not send it shows "(not given)".
  std::vector<std::vector<std::pair<std::string, std::string>>> decoded;
  std::vector<std::string> names;
  for (const auto& encoded : all) {
    decoded.push_back(decode(encoded));
    for (const auto& field : decoded.back())
      if (std::find(names.begin(), names.end(), field.first) == names.end()) names.push_back(field.first);
  }
  std::ostringstream msg;
  bool mismatch = false;
  for (const auto& name : names) {
    std::vector<std::string> values;
    for (const auto& rank_fields : decoded) {
      auto it = std::find_if(rank_fields.begin(), rank_fields.end(), [&](const auto& f) { return f.first == name; });
      values.push_back(it == rank_fields.end() ? kAbsent : it->second);
    }
    if (std::all_of(values.begin(), values.end(), [&](const std::string& v) { return v == values[0]; })) continue;
    mismatch = true;
    msg << "\n  " << name << ":";
    for (std::size_t r = 0; r < values.size() && r < 16; ++r) msg << " rank " << r << "=" << settings::shown_value(values[r]);
    if (values.size() > 16) msg << " …";
  }
  if (mismatch)
    throw Error("ranks disagree on " + context + " (start every rank with the same settings):" + msg.str(),
                true);
}

void agree_on_strings(MPI_Comm comm, const std::vector<std::string>& values, const std::string& what) {
  std::string mine;
  for (const auto& v : values) mine += (mine.empty() ? "" : " ") + settings::shown_value(v);
  const auto all = allgather_strings(comm, mine);
  std::map<std::string, std::vector<int>> ranks_by_values;
  for (int r = 0; r < static_cast<int>(all.size()); ++r) ranks_by_values[all[r]].push_back(r);
  if (ranks_by_values.size() == 1) return;
  std::ostringstream msg;
  msg << "ranks disagree on " << what << " (start every rank with the same ones):";
  int groups = 0;
  for (const auto& [text, ranks] : ranks_by_values) {
    if (++groups > 8) {
      msg << "\n  … (" << ranks_by_values.size() << " different sets in all)";
      break;
    }
    msg << "\n  rank" << (ranks.size() > 1 ? "s " : " ");
    for (std::size_t i = 0; i < ranks.size() && i < 8; ++i) msg << (i ? "," : "") << ranks[i];
    if (ranks.size() > 8) msg << ",… (" << ranks.size() << " ranks)";
    msg << ": " << (text.empty() ? std::string("(nothing)") : text);
  }
  throw Error(msg.str(), true);
}

}  // namespace ringcomm
