// GpuPlacement: which rank drives which GPU, judged from every rank's own account. Runs without GPUs:
// the ranks hand in made-up PCI bus ids, as a backend would hand in real ones.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "ringcomm/collective.hpp"
#include "ringcomm/backend/gpu_placement.hpp"

namespace ringcomm {
namespace {

std::string fake_bus_id(int gpu) { return "0000:" + std::to_string(10 + gpu) + ":00.0"; }

TEST(GpuPlacement, EveryRankSeesEveryRankInOrder) {
  const int ranks = comm_size(MPI_COMM_WORLD);
  const GpuPlacement placement = GpuPlacement::gather(MPI_COMM_WORLD, {fake_bus_id(comm_rank(MPI_COMM_WORLD)), ranks});
  ASSERT_EQ(static_cast<int>(placement.ranks().size()), ranks);
  for (int r = 0; r < ranks; ++r) {
    EXPECT_EQ(placement.ranks()[r].world_rank, r);
    EXPECT_EQ(placement.ranks()[r].gpu.bus_id, fake_bus_id(r));
    EXPECT_EQ(placement.ranks()[r].gpu.visible_gpus, ranks);
    EXPECT_FALSE(placement.ranks()[r].host.empty());
  }
}

TEST(GpuPlacement, ARankPerGpuIsFine) {
  const int ranks = comm_size(MPI_COMM_WORLD);
  const GpuPlacement placement = GpuPlacement::gather(MPI_COMM_WORLD, {fake_bus_id(comm_rank(MPI_COMM_WORLD)), ranks});
  EXPECT_EQ(placement.sharing_problems(), "");
  EXPECT_GE(placement.gpus_in_total(), ranks);
}

TEST(GpuPlacement, RanksOnOneGpuAreNamedWithTheirHost) {
  const int ranks = comm_size(MPI_COMM_WORLD);
  if (ranks < 2) GTEST_SKIP() << "needs two ranks";
  // All ranks on one GPU, each seeing only that one (as CUDA_VISIBLE_DEVICES=0 would make it).
  const GpuPlacement placement = GpuPlacement::gather(MPI_COMM_WORLD, {fake_bus_id(0), 1});
  const std::string problems = placement.sharing_problems();
  const std::string host = placement.ranks()[0].host;  // mpirun starts the tests on one host
  const std::string who = ranks == 2 ? "ranks 0 and 1" : ranks == 3 ? "ranks 0, 1 and 2" : "ranks 0, 1, 2 and 3";
  EXPECT_NE(problems.find(who + " share GPU " + fake_bus_id(0) + " on " + host), std::string::npos) << problems;
  EXPECT_NE(problems.find("host " + host + " runs " + std::to_string(ranks) + " ranks but has only 1 GPU"),
            std::string::npos)
      << problems;
  EXPECT_EQ(placement.gpus_in_total(), 1);
}

TEST(GpuPlacement, TransportsNeedingAGpuPerRankRefuseSharedOnesAlikeOnEveryRank) {
  const int ranks = comm_size(MPI_COMM_WORLD);
  const GpuPlacement own = GpuPlacement::gather(MPI_COMM_WORLD, {fake_bus_id(comm_rank(MPI_COMM_WORLD)), ranks});
  EXPECT_EQ(own.one_rank_per_gpu_refusal("NCCL"), "");
  if (ranks < 2) GTEST_SKIP() << "sharing needs two ranks";
  const GpuPlacement shared = GpuPlacement::gather(MPI_COMM_WORLD, {fake_bus_id(0), 1});
  const std::string refusal = shared.one_rank_per_gpu_refusal("NCCL");
  EXPECT_EQ(refusal.find(shared.sharing_problems() + ": NCCL needs one rank per GPU"), 0u) << refusal;
  EXPECT_NE(refusal.find("(e.g. mpirun -np 1)"), std::string::npos) << refusal;
  // Every rank must hold the same words, so that a probe can return them as a collective answer.
  const std::vector<std::string> all = allgather_strings(MPI_COMM_WORLD, refusal);
  for (const std::string& other : all) EXPECT_EQ(other, refusal);
}

TEST(GpuPlacement, WhatRanksSayIsCollectedInRankOrder) {
  const int rank = comm_rank(MPI_COMM_WORLD);
  const std::string said = said_by_ranks(MPI_COMM_WORLD, rank % 2 == 1 ? "no GPU " + std::to_string(rank) : "");
  std::string expected;
  for (int r = 1; r < comm_size(MPI_COMM_WORLD); r += 2)
    expected += (expected.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r) + ": no GPU " + std::to_string(r);
  EXPECT_EQ(said, expected);
  EXPECT_EQ(said_by_ranks(MPI_COMM_WORLD, ""), "");
}

TEST(GpuPlacement, RanksWithoutAGpuAreLeftToTheCaller) {
  const int rank = comm_rank(MPI_COMM_WORLD);
  const GpuPlacement placement =
      GpuPlacement::gather(MPI_COMM_WORLD, rank % 2 == 0 ? GpuIdentity{fake_bus_id(rank), 4} : GpuIdentity{});
  EXPECT_EQ(placement.sharing_problems(), "");
}

}  // namespace
}  // namespace ringcomm
