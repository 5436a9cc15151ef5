#pragma once
// Which ranks form which ring.
//
// p ranks are cut into p/S sub-rings of S consecutive ranks: sub-ring r holds world ranks
// [rS, (r+1)S). A rank talks to its left and right neighbour inside its sub-ring; ranks with the
// same position in different sub-rings own the same slice of G_t and are summed at the end.
#include <mpi.h>

#include <optional>
#include <string>

namespace ringcomm {

// S from RINGCOMM_RING_SIZE, or `fallback` when unset. Collective over `comm`, so that a value one
// rank cannot parse is reported by every rank. Validation against p happens in Topology.
int requested_ring_size(int fallback, MPI_Comm comm = MPI_COMM_WORLD);

// The one parser of RINGCOMM_RING_SIZE's values (named `setting` in errors): a number S >= 1, or
// nothing for `auto`. Local; callers make it collective.
std::optional<int> parse_ring_size(const std::string& text, const std::string& setting);

class Topology {
 public:
  // Collective over `world`. Throws a collective Error unless 1 <= ring_size and ring_size divides p.
  Topology(MPI_Comm world, int ring_size);
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  MPI_Comm world() const { return world_; }
  int world_rank() const { return world_rank_; }
  int world_size() const { return world_size_; }
  int ring_size() const { return ring_size_; }
  int ring_count() const { return world_size_ / ring_size_; }
  int ring_index() const { return world_rank_ / ring_size_; }  // which sub-ring
  int position() const { return world_rank_ % ring_size_; }    // rank inside the sub-ring
  int right() const { return (position() + 1) % ring_size_; }
  int left() const { return (position() + ring_size_ - 1) % ring_size_; }

  MPI_Comm ring_comm() const { return ring_comm_; }    // ranks of this sub-ring, ordered by position
  MPI_Comm cross_comm() const { return cross_comm_; }  // same position across sub-rings

  std::string describe() const;

 private:
  MPI_Comm world_;
  int world_rank_ = 0;
  int world_size_ = 1;
  int ring_size_ = 1;
  MPI_Comm ring_comm_ = MPI_COMM_NULL;
  MPI_Comm cross_comm_ = MPI_COMM_NULL;
};

}  // namespace ringcomm
