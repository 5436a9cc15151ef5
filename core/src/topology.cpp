#include "ringcomm/topology.hpp"

#include <climits>

#include "ringcomm/collective.hpp"
#include "ringcomm/settings.hpp"

namespace ringcomm {

std::optional<int> parse_ring_size(const std::string& text, const std::string& setting) {
  if (text == "auto") return std::nullopt;
  return static_cast<int>(settings::parse_integer(text, setting, 1, INT_MAX));
}

int requested_ring_size(int fallback, MPI_Comm comm) {
  return collectively(comm, [&] {
    const auto text = settings::env("RINGCOMM_RING_SIZE");
    if (!text) return fallback;
    const std::optional<int> size = parse_ring_size(*text, "RINGCOMM_RING_SIZE");
    if (!size)
      throw Error("RINGCOMM_RING_SIZE='auto' is not valid in this program: expected an integer in [1, " +
                  std::to_string(INT_MAX) + "] (auto needs a program that states its memory needs: "
                  "ringcomm::Session, or ringcomm::resolve_ring_size as in ring_compare)");
    return *size;
  });
}

Topology::Topology(MPI_Comm world, int ring_size) : world_(world), ring_size_(ring_size) {
  const PhaseScope phase("set-up");
  MPI_Comm_rank(world, &world_rank_);
  MPI_Comm_size(world, &world_size_);
  check_identical(world, {{"ring size", std::to_string(ring_size)}}, "the ring size (RINGCOMM_RING_SIZE)");
  if (ring_size < 1 || world_size_ % ring_size != 0)
    throw Error("ring size S=" + std::to_string(ring_size) + " must be at least 1 and divide the " +
                    std::to_string(world_size_) + " ranks (RINGCOMM_RING_SIZE)",
                true);
  watched("MPI_Comm_split (sub-rings)", [&] { return MPI_Comm_split(world, ring_index(), position(), &ring_comm_); });
  watched("MPI_Comm_split (across sub-rings)",
          [&] { return MPI_Comm_split(world, position(), ring_index(), &cross_comm_); });
}

Topology::~Topology() {
  if (ring_comm_ != MPI_COMM_NULL) MPI_Comm_free(&ring_comm_);
  if (cross_comm_ != MPI_COMM_NULL) MPI_Comm_free(&cross_comm_);
}

std::string Topology::describe() const {
  return std::to_string(world_size_) + " ranks, " + std::to_string(ring_count()) + " sub-ring(s) of S=" +
         std::to_string(ring_size_);
}

}  // namespace ringcomm
