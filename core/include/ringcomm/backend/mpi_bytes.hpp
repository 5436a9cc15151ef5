#pragma once
// A byte count as an MPI (datatype, count) pair. MPI counts are int, so messages of 2 GiB and more
// travel as blocks of a derived type; transports built on MPI share this.
#include <mpi.h>

#include <cstddef>

namespace ringcomm {

class MpiBytes {
 public:
  explicit MpiBytes(std::size_t bytes);
  ~MpiBytes();
  MpiBytes(const MpiBytes&) = delete;
  MpiBytes& operator=(const MpiBytes&) = delete;

  MPI_Datatype type() const { return type_; }
  int count() const { return count_; }

 private:
  MPI_Datatype type_ = MPI_BYTE;
  int count_ = 0;
  bool owned_ = false;
};

}  // namespace ringcomm
