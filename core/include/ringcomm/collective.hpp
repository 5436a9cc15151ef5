#pragma once
// Agreement between ranks. Bad input must produce the same clear error on every rank and never a
// hang, so every check that one rank could fail alone goes through one of these helpers.
#include <mpi.h>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ringcomm/error.hpp"

namespace ringcomm {

// This rank's index in `comm`, and how many ranks `comm` has.
int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

// Every rank's string, indexed by rank.
std::vector<std::string> allgather_strings(MPI_Comm comm, const std::string& mine);

// Collective: if any rank passes ok == false, every rank throws a collective Error naming each failing
// rank and its reason.
void agree(MPI_Comm comm, bool ok, const std::string& reason_if_not);

// Collective: runs `work` on every rank; if it throws ringcomm::Error on any rank, every rank throws.
template <class Work>
auto collectively(MPI_Comm comm, Work&& work) -> decltype(work()) {
  std::string reason;
  bool ok = true;
  if constexpr (std::is_void_v<decltype(work())>) {
    try {
      work();
    } catch (const Error& e) {
      ok = false;
      reason = e.what();
    }
    agree(comm, ok, reason);
  } else {
    decltype(work()) result{};
    try {
      result = work();
    } catch (const Error& e) {
      ok = false;
      reason = e.what();
    }
    agree(comm, ok, reason);
    return result;
  }
}

// A named value that every rank must hold identically (message size, ring size, transport …).
struct Field {
  std::string name;
  std::string value;
};

// Collective: one exchange of all fields; any disagreement throws on every rank with the values each
// rank holds, so a user sees at once which rank was started differently. This is the agreement
// mechanism for settings: pass every setting that decides which collectives come next, an unset one
// as a value such as "(unset)", and check them in one call before entering those collectives. Ranks
// may pass different names; a name missing on a rank counts as a disagreement ("(not given)").
void check_identical(MPI_Comm comm, const std::vector<Field>& fields, const std::string& context);

}  // namespace ringcomm
