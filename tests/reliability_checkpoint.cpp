// Checkpoints of a distributed array: a round trip, the choice of round, and refusals of damaged,
// incomplete and foreign checkpoints on every rank. (ring_compare killed and restarted end to end:
// checkpoint_restart.cmake.)
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "conformance.hpp"
#include "reliability.hpp"
#include "ringcomm/checkpoint.hpp"
#include "ringcomm/distributed_array.hpp"

namespace ringcomm::reliability {
namespace {

using Scalar = Kokkos::complex<double>;

std::vector<Field> shape(int extra = 0) { return {{"p", std::to_string(comm_size(MPI_COMM_WORLD))}, {"N", std::to_string(1000 + extra)}}; }

// Distinct values per entry and round, so that a wrong round or slice shows.
void fill(DistributedArray<Scalar>& array, int round) {
  auto host = Kokkos::create_mirror_view(array.local());
  for (std::size_t i = 0; i < host.extent(0); ++i)
    host(i) = Scalar(double(array.range().begin + i), double(round));
  Kokkos::deep_copy(array.local(), host);
}

bool holds(const DistributedArray<Scalar>& array, int round) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), array.local());
  for (std::size_t i = 0; i < host.extent(0); ++i)
    if (host(i) != Scalar(double(array.range().begin + i), double(round))) return false;
  return true;
}

std::string refusal(const Checkpoint& checkpoint, DistributedArray<Scalar>& array) {
  try {
    checkpoint.restore(array.local().data(), array.bytes_per_rank());
  } catch (const Error& e) {
    EXPECT_TRUE(e.collective()) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "the checkpoint was not refused";
  return "";
}

class CheckpointTest : public ::testing::Test {
 protected:
  SharedScratch scratch_{"checkpoint"};
  Topology topology_{MPI_COMM_WORLD, comm_size(MPI_COMM_WORLD)};
  DistributedArray<Scalar> array_{topology_, 1000};
  std::string dir() const { return scratch_.path() + "/run"; }
};

TEST_F(CheckpointTest, NothingToRestoreBeforeTheFirstSave) {
  const Checkpoint checkpoint(MPI_COMM_WORLD, dir(), shape());
  EXPECT_FALSE(checkpoint.restore(array_.local().data(), array_.bytes_per_rank()).has_value());
}

TEST_F(CheckpointTest, TheNewestSavedRoundComesBackAndOlderOnesAreRemoved) {
  const Checkpoint checkpoint(MPI_COMM_WORLD, dir(), shape());
  for (const int round : {2, 4}) {
    fill(array_, round);
    checkpoint.save(round, {{"measurements_done", "8"}}, array_.local().data(), array_.bytes_per_rank());
  }
  EXPECT_FALSE(std::filesystem::exists(checkpoint.path(2)));
  EXPECT_TRUE(std::filesystem::exists(checkpoint.path(4)));
  fill(array_, 0);
  const auto round = checkpoint.restore(array_.local().data(), array_.bytes_per_rank());
  ASSERT_TRUE(round.has_value());
  EXPECT_EQ(*round, 4u);
  EXPECT_TRUE(holds(array_, 4));
}

// A run that ended while saving (killed, or out of disk) left a partial temporary file; it must not
// stay to fill the disk again on the restart.
TEST_F(CheckpointTest, StaleTemporaryFilesAreRemovedBySaving) {
  const Checkpoint checkpoint(MPI_COMM_WORLD, dir(), shape());
  std::filesystem::create_directories(dir());
  const std::string stale = checkpoint.path(3) + ".tmp";
  std::ofstream(stale) << "partial";
  ASSERT_TRUE(std::filesystem::exists(stale));
  fill(array_, 5);
  checkpoint.save(5, {{"measurements_done", "8"}}, array_.local().data(), array_.bytes_per_rank());
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_FALSE(std::filesystem::exists(checkpoint.path(5) + ".tmp"));
  EXPECT_TRUE(std::filesystem::exists(checkpoint.path(5)));
}

// A checkpoint file that is a FIFO made opening it wait for a writer forever.
TEST_F(CheckpointTest, AFifoInPlaceOfACheckpointIsRefusedNotWaitedOn) {
  const Checkpoint checkpoint(MPI_COMM_WORLD, dir(), shape());
  std::filesystem::create_directories(dir());
  ASSERT_EQ(mkfifo(checkpoint.path(7).c_str(), 0644), 0);
  EXPECT_NE(refusal(checkpoint, array_).find("not a regular file"), std::string::npos);
}

TEST_F(CheckpointTest, ARoundNotEveryRankSavedIsPassedOver) {
  if (comm_size(MPI_COMM_WORLD) == 1) GTEST_SKIP() << "needs two ranks";
  const Checkpoint checkpoint(MPI_COMM_WORLD, dir(), shape());
  fill(array_, 6);
  checkpoint.save(6, {}, array_.local().data(), array_.bytes_per_rank());
  // As if the run died while saving round 8: rank 0 finished its file, the others did not.
  if (comm_rank(MPI_COMM_WORLD) == 0) std::filesystem::copy_file(checkpoint.path(6), checkpoint.path(8));
  fill(array_, 0);
  const auto round = checkpoint.restore(array_.local().data(), array_.bytes_per_rank());
  ASSERT_TRUE(round.has_value());
  EXPECT_EQ(*round, 6u);
  EXPECT_TRUE(holds(array_, 6));
}

TEST_F(CheckpointTest, ADamagedFileIsRefusedByEveryRank) {
  const Checkpoint checkpoint(MPI_COMM_WORLD, dir(), shape());
  fill(array_, 3);
  checkpoint.save(3, {}, array_.local().data(), array_.bytes_per_rank());
  const int victim = comm_size(MPI_COMM_WORLD) - 1;
  if (comm_rank(MPI_COMM_WORLD) == victim) {
    std::fstream file(checkpoint.path(3), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(200);
    file.put('\x5a');
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string why = refusal(checkpoint, array_);
  EXPECT_NE(why.find("is damaged: its checksum (FNV-1a 64)"), std::string::npos) << why;
  EXPECT_NE(why.find("rank-" + std::to_string(victim) + ".round-3.ckpt"), std::string::npos) << why;
}

TEST_F(CheckpointTest, ATruncatedFileIsRefusedByEveryRank) {
  const Checkpoint checkpoint(MPI_COMM_WORLD, dir(), shape());
  checkpoint.save(1, {}, array_.local().data(), array_.bytes_per_rank());
  if (comm_rank(MPI_COMM_WORLD) == 0)
    std::filesystem::resize_file(checkpoint.path(1), std::filesystem::file_size(checkpoint.path(1)) - 3);
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string why = refusal(checkpoint, array_);
  EXPECT_NE(why.find("(truncated?)"), std::string::npos) << why;
}

TEST_F(CheckpointTest, ACheckpointOfAnotherRunIsRefusedNamingWhatDiffers) {
  Checkpoint(MPI_COMM_WORLD, dir(), shape()).save(5, {}, array_.local().data(), array_.bytes_per_rank());
  const Checkpoint other(MPI_COMM_WORLD, dir(), shape(24));
  const std::string why = refusal(other, array_);
  EXPECT_NE(why.find("was written by a different run; it differs in:\n  N: 1000 in the checkpoint, 1024 now"),
            std::string::npos)
      << why;
  EXPECT_EQ(why.find("  p: "), std::string::npos) << "p did not change: " << why;
}

TEST_F(CheckpointTest, ASliceOfAnotherSizeIsRefusedNotReadPastItsEnd) {
  Checkpoint(MPI_COMM_WORLD, dir(), shape()).save(5, {}, array_.local().data(), array_.bytes_per_rank());
  DistributedArray<Scalar> larger(topology_, 1000 + 10 * comm_size(MPI_COMM_WORLD));
  const std::string why = refusal(Checkpoint(MPI_COMM_WORLD, dir(), shape()), larger);
  EXPECT_NE(why.find("slice bytes: "), std::string::npos) << why;
}

TEST(CheckpointSettingsTest, EveryWithoutADirectoryIsRefusedByEveryRank) {
  const conformance::ScopedEnv directory("RINGCOMM_CHECKPOINT", "");
  const conformance::ScopedEnv every("RINGCOMM_CHECKPOINT_EVERY", "5");
  try {
    checkpoint_settings(MPI_COMM_WORLD);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_NE(std::string(e.what()).find("RINGCOMM_CHECKPOINT_EVERY=5 is set but RINGCOMM_CHECKPOINT is not"),
              std::string::npos)
        << e.what();
  }
}

TEST(CheckpointSettingsTest, BothAreReadFromTheEnvironment) {
  const conformance::ScopedEnv directory("RINGCOMM_CHECKPOINT", "/somewhere");
  const conformance::ScopedEnv every("RINGCOMM_CHECKPOINT_EVERY", "12");
  const CheckpointSettings s = checkpoint_settings(MPI_COMM_WORLD);
  EXPECT_TRUE(s.enabled());
  EXPECT_EQ(s.directory, "/somewhere");
  EXPECT_EQ(s.every_rounds, 12u);
}

}  // namespace
}  // namespace ringcomm::reliability
