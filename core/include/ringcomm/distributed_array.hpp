#pragma once
// A flat array (G_t) split over the S ranks of each sub-ring; every rank allocates only its slice.
// It keeps a reference to its Topology: keep the topology alive longer (Session::array does).
#include <mpi.h>

#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "ringcomm/memory.hpp"
#include "ringcomm/topology.hpp"
#include "ringcomm/trace.hpp"

namespace ringcomm {

struct SliceRange {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t size() const { return end - begin; }
};

// Contiguous slices whose sizes differ by at most one: the first total % parts slices get the extra.
SliceRange slice_of(std::size_t total, int parts, int index);

// How a scalar is seen by MPI: `components` values of the real type `mpi_type`.
template <class Scalar>
struct ScalarLayout;
template <>
struct ScalarLayout<double> {
  static MPI_Datatype mpi_type() { return MPI_DOUBLE; }
  static constexpr int components = 1;
  static constexpr const char* name = "double";
  static constexpr const char* npy_descr = "<f8";
};
template <>
struct ScalarLayout<float> {
  static MPI_Datatype mpi_type() { return MPI_FLOAT; }
  static constexpr int components = 1;
  static constexpr const char* name = "float";
  static constexpr const char* npy_descr = "<f4";
};
template <>
struct ScalarLayout<Kokkos::complex<double>> {
  static MPI_Datatype mpi_type() { return MPI_DOUBLE; }
  static constexpr int components = 2;
  static constexpr const char* name = "complex<double>";
  static constexpr const char* npy_descr = "<c16";
};
template <>
struct ScalarLayout<Kokkos::complex<float>> {
  static MPI_Datatype mpi_type() { return MPI_FLOAT; }
  static constexpr int components = 2;
  static constexpr const char* name = "complex<float>";
  static constexpr const char* npy_descr = "<c8";
};

// Sums `count` scalars element-wise over `comm` in place, in chunks that keep MPI counts in int
// range and host staging small. `data` lives in the default memory space.
void allreduce_sum_bytes(void* data, std::size_t count, MPI_Datatype real_type, int components,
                         std::size_t scalar_bytes, MPI_Comm comm);

// Collective over the world: writes the array whose sub-ring-0 slices are `local` as one .npy file,
// without gathering it: rank 0 writes the header, each rank of sub-ring 0 its slice at its offset
// (MPI-IO, MPI_File_write_at_all in pieces that keep counts in int range, each count checked), into
// `path`.tmp, renamed to `path` once every part is in. `shape` (C order; empty means {total}) must
// hold `total` values. Every rank throws the same Error when any part fails, and no `path` is left.
void write_npy_slices(const Topology& topology, const void* local, SliceRange range, std::size_t total,
                      std::size_t scalar_bytes, const char* descr, std::vector<std::size_t> shape,
                      const std::string& path);

// Collects equal-position slices of sub-ring 0 on world rank 0 (host memory).
void gather_bytes(const void* local, std::size_t local_count, std::size_t total, int components,
                  std::size_t scalar_bytes, MPI_Datatype real_type, const Topology& topology, void* out);

template <class Scalar>
class DistributedArray {
 public:
  using View = Kokkos::View<Scalar*>;

  // Collective over the world: every rank must ask for the same total; the slice must fit memory.
  DistributedArray(const Topology& topology, std::size_t total_entries, const std::string& label = "G_t");

  std::size_t total() const { return total_; }
  SliceRange range() const { return range_; }
  View local() const { return local_; }
  std::size_t bytes_per_rank() const { return range_.size() * sizeof(Scalar); }

  // Collective over the world: slices holding the same entries in different sub-rings are summed,
  // so afterwards every sub-ring holds the total.
  void sum_across_rings() {
    const Phase reduce("ringcomm::reduce_across_rings");
    Kokkos::fence();
    allreduce_sum_bytes(local_.data(), range_.size(), ScalarLayout<Scalar>::mpi_type(),
                        ScalarLayout<Scalar>::components, sizeof(Scalar), topology_.cross_comm());
  }

  // Collective over the world: the whole array as a NumPy .npy file at `path`, of dtype '<c16',
  // '<c8', '<f8' or '<f4' and shape `shape` (empty: one dimension), written by the ranks of sub-ring 0
  // in parallel (MPI-IO), never gathered. Call it after sum_across_rings() when there are several
  // sub-rings.
  void write_npy(const std::string& path, const std::vector<std::size_t>& shape = {}) const {
    Kokkos::fence();
    write_npy_slices(topology_, local_.data(), range_, total_, sizeof(Scalar), ScalarLayout<Scalar>::npy_descr, shape,
                     path);
  }

  // Collective over the world: the whole array on world rank 0 (small problems only; empty elsewhere).
  std::vector<Scalar> gather() const {
    Kokkos::fence();
    std::vector<Scalar> full(topology_.world_rank() == 0 ? total_ : 0);
    gather_bytes(local_.data(), range_.size(), total_, ScalarLayout<Scalar>::components, sizeof(Scalar),
                 ScalarLayout<Scalar>::mpi_type(), topology_, full.data());
    return full;
  }

 private:
  const Topology& topology_;
  std::size_t total_;
  SliceRange range_;
  View local_;
  TrackedBytes tracked_;  // local_ in allocation_stats()
};

// Throws a collective Error when the slice cannot fit; shared by every DistributedArray.
void check_slice_fits(const Topology& topology, std::size_t total, std::size_t slice_entries,
                      std::size_t scalar_bytes, const std::string& scalar_name, const std::string& label);

template <class Scalar>
DistributedArray<Scalar>::DistributedArray(const Topology& topology, std::size_t total_entries,
                                           const std::string& label)
    : topology_(topology),
      total_(total_entries),
      range_(slice_of(total_entries, topology.ring_size(), topology.position())) {
  check_slice_fits(topology, total_entries, range_.size(), sizeof(Scalar), ScalarLayout<Scalar>::name, label);
  local_ = View(label, range_.size());
  tracked_ = TrackedBytes(bytes_per_rank());
}

}  // namespace ringcomm
