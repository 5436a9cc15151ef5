#include "ringcomm/backend/mpi_bytes.hpp"

#include <climits>

#include "ringcomm/error.hpp"

namespace ringcomm {

MpiBytes::MpiBytes(std::size_t bytes) {
  if (bytes <= static_cast<std::size_t>(INT_MAX)) {
    count_ = static_cast<int>(bytes);
    return;
  }
  // Largest power-of-two block (at most 1 MiB) that divides the size keeps the count in range.
  std::size_t block = std::size_t(1) << 20;
  while (block > 1 && bytes % block != 0) block >>= 1;
  if (bytes / block > static_cast<std::size_t>(INT_MAX))
    throw Error("message of " + std::to_string(bytes) + " bytes is too large for MPI counts; use a size "
                "divisible by a power of two");
  MPI_Type_contiguous(static_cast<int>(block), MPI_BYTE, &type_);
  MPI_Type_commit(&type_);
  owned_ = true;
  count_ = static_cast<int>(bytes / block);
}

MpiBytes::~MpiBytes() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owned_ && !finalized) MPI_Type_free(&type_);
}

}  // namespace ringcomm
