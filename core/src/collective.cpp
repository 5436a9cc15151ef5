#include "ringcomm/collective.hpp"

#include <algorithm>
#include <map>
#include <sstream>

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

std::vector<std::string> allgather_strings(MPI_Comm comm, const std::string& mine) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  int my_length = static_cast<int>(mine.size());
  std::vector<int> lengths(size);
  MPI_Allgather(&my_length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  std::vector<int> offsets(size, 0);
  for (int r = 1; r < size; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::string joined(static_cast<std::size_t>(offsets[size - 1] + lengths[size - 1]), '\0');
  MPI_Allgatherv(mine.data(), my_length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(),
                 MPI_CHAR, comm);
  std::vector<std::string> all(size);
  for (int r = 0; r < size; ++r) all[r] = joined.substr(offsets[r], lengths[r]);
  return all;
}

void agree(MPI_Comm comm, bool ok, const std::string& reason_if_not) {
  int mine = ok ? 1 : 0;
  int all_ok = 0;
  MPI_Allreduce(&mine, &all_ok, 1, MPI_INT, MPI_MIN, comm);
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
    for (std::size_t r = 0; r < values.size() && r < 16; ++r) msg << " rank " << r << "=" << values[r];
    if (values.size() > 16) msg << " …";
  }
  if (mismatch)
    throw Error("ranks disagree on " + context + " (start every rank with the same settings):" + msg.str(),
                true);
}

}  // namespace ringcomm
