#pragma once
// A channel whose slots live in the data memory kind and whose traffic goes through pinned host
// staging buffers, one chunk at a time, so that neither MPI nor the copies ever see a whole message.
#include <mpi.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "ringcomm/backend/mpi_call.hpp"
#include "ringcomm/transport.hpp"
#include "staging_copier.hpp"

namespace ringcomm::host_backend {

class StagedChannel final : public Channel {
 public:
  // Collective over spec.comm.
  StagedChannel(const ChannelSpec& spec, MemoryKind slot_memory, std::size_t chunk_bytes);
  ~StagedChannel() override;
  StagedChannel(const StagedChannel&) = delete;
  StagedChannel& operator=(const StagedChannel&) = delete;

  void* slot(int index) override { return slots_[index].data(); }
  const ChannelSpec& spec() const override { return spec_; }
  void start(int send, int recv, StreamRef stream) override;
  void finish(StreamRef stream) override;
  std::size_t extra_bytes() const override { return send_staging_.size() + recv_staging_.size(); }

 private:
  // Two lanes per direction: while chunk c travels from one, chunk c+1 is copied into the other.
  static constexpr int kMaxLanes = 2;

  int lane_of(std::size_t chunk) const { return static_cast<int>(chunk % lanes_); }
  std::size_t chunk_offset(std::size_t chunk) const { return chunk * chunk_bytes_; }
  std::size_t chunk_size(std::size_t chunk) const;
  unsigned char* send_stage(int lane) const;
  unsigned char* recv_stage(int lane) const;

  // What a wait of this channel waits for, should its deadline pass.
  Stall stall(std::string waiting_for, int peer, std::size_t bytes_outstanding) const;
  void post_receive(std::size_t chunk);
  void start_download(std::size_t chunk);
  void send_downloaded(std::size_t chunk);
  void wait_received(std::size_t chunk);

  ChannelSpec spec_;
  std::size_t chunk_bytes_;
  std::size_t chunks_;
  int lanes_;
  PrivateComm comm_;  // a channel of its own keeps threads' traffic apart without tag bookkeeping
  std::array<Buffer, kSlots> slots_;
  Buffer send_staging_;
  Buffer recv_staging_;
  std::unique_ptr<StagingCopier> copier_;
  std::vector<MPI_Request> sends_;     // per lane: the last chunk sent from its staging buffer
  std::vector<MPI_Request> receives_;  // per lane: the chunk being received into its staging buffer
  const unsigned char* sending_ = nullptr;  // slot of the exchange in progress
  unsigned char* receiving_ = nullptr;
};

}  // namespace ringcomm::host_backend
