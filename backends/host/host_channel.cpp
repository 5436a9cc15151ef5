#include "host_channel.hpp"

#include <algorithm>

#include "ringcomm/backend/check.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/backend/mpi_call.hpp"

namespace ringcomm::host_backend {

namespace {
// Chunks of one exchange match in order (MPI never lets messages between the same pair on the same
// communicator and tag overtake each other), so one tag serves them all.
constexpr int kChunkTag = 0;
}  // namespace

StagedChannel::StagedChannel(const ChannelSpec& spec, MemoryKind slot_memory, std::size_t chunk_bytes)
    : spec_(spec),
      chunk_bytes_(chunk_bytes),
      chunks_((spec.bytes + chunk_bytes - 1) / chunk_bytes),
      lanes_(static_cast<int>(std::min<std::size_t>(kMaxLanes, chunks_))),
      comm_(spec.comm) {
  for (int s = 0; s < kSlots; ++s) slots_[s] = Buffer(slot_memory, spec.bytes, "ringcomm host slot");
  const std::size_t stage_bytes = lanes_ * std::min(chunk_bytes_, spec.bytes);
  send_staging_ = Buffer(MemoryKind::pinned_host, stage_bytes, "ringcomm host send staging");
  recv_staging_ = Buffer(MemoryKind::pinned_host, stage_bytes, "ringcomm host receive staging");
  copier_ = make_staging_copier(slot_memory, lanes_, spec.timeout_seconds);
  sends_.assign(lanes_, MPI_REQUEST_NULL);
  receives_.assign(lanes_, MPI_REQUEST_NULL);
}

StagedChannel::~StagedChannel() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  // After an error receives may still be posted into the staging buffers about to be freed, and sends
  // read from them; what cannot be stopped keeps its memory (abandon), as the job is ending anyway.
  const bool settled = cancel_pending_receives(receives_.data(), static_cast<int>(receives_.size())) &&
                       all_settled(sends_.data(), static_cast<int>(sends_.size()));
  if (!settled) {
    abandon(std::move(send_staging_));
    abandon(std::move(recv_staging_));
  }
}

std::size_t StagedChannel::chunk_size(std::size_t chunk) const {
  return std::min(chunk_bytes_, spec_.bytes - chunk_offset(chunk));
}

unsigned char* StagedChannel::send_stage(int lane) const {
  return static_cast<unsigned char*>(send_staging_.data()) + lane * std::min(chunk_bytes_, spec_.bytes);
}

unsigned char* StagedChannel::recv_stage(int lane) const {
  return static_cast<unsigned char*>(recv_staging_.data()) + lane * std::min(chunk_bytes_, spec_.bytes);
}

Stall StagedChannel::stall(std::string waiting_for, int peer, std::size_t bytes_outstanding) const {
  return channel_stall(spec_, std::move(waiting_for), peer, bytes_outstanding);
}

void StagedChannel::post_receive(std::size_t chunk) {
  RINGCOMM_CHECK(MPI_Irecv(recv_stage(lane_of(chunk)), static_cast<int>(chunk_size(chunk)), MPI_BYTE, spec_.recv_from,
                      kChunkTag, comm_.get(), &receives_[lane_of(chunk)]));
}

void StagedChannel::start_download(std::size_t chunk) {
  const int lane = lane_of(chunk);
  // The lane's staging buffer may still be on its way to the right neighbour.
  wait_for_requests(&sends_[lane], 1, MPI_STATUSES_IGNORE, spec_.timeout_seconds, RINGCOMM_TRANSPORT_PREFIX "MPI_Testall", [&](auto) {
    return stall("the right neighbour to take chunk " + std::to_string(chunk - lanes_), spec_.send_to,
                 spec_.bytes - chunk_offset(chunk - lanes_));
  });
  copier_->start_download(lane, send_stage(lane), sending_ + chunk_offset(chunk), chunk_size(chunk));
}

void StagedChannel::send_downloaded(std::size_t chunk) {
  const int lane = lane_of(chunk);
  copier_->wait_download(lane);
  RINGCOMM_CHECK(MPI_Isend(send_stage(lane), static_cast<int>(chunk_size(chunk)), MPI_BYTE, spec_.send_to, kChunkTag, comm_.get(),
                      &sends_[lane]));
}

void StagedChannel::wait_received(std::size_t chunk) {
  MPI_Status status;
  wait_for_requests(&receives_[lane_of(chunk)], 1, &status, spec_.timeout_seconds, RINGCOMM_TRANSPORT_PREFIX "MPI_Testall",
                    [&](auto) {
                      return stall("chunk " + std::to_string(chunk) + " of " + std::to_string(chunks_) +
                                       " from the left neighbour",
                                   spec_.recv_from, spec_.bytes - chunk_offset(chunk));
                    });
  int received = 0;
  MPI_Get_count(&status, MPI_BYTE, &received);
  if (static_cast<std::size_t>(received) != chunk_size(chunk))
    throw Error(RINGCOMM_TRANSPORT_PREFIX "chunk " + std::to_string(chunk) + " from ring position " +
                std::to_string(spec_.recv_from) + " has " + std::to_string(received) + " bytes, expected " +
                std::to_string(chunk_size(chunk)) + " (is RINGCOMM_HOST_CHUNK_BYTES the same on every rank?)");
}

void StagedChannel::start(int send, int recv, StreamRef) {
  sending_ = static_cast<const unsigned char*>(slots_[send].data());
  receiving_ = static_cast<unsigned char*>(slots_[recv].data());
  for (std::size_t chunk = 0; chunk < static_cast<std::size_t>(lanes_); ++chunk) post_receive(chunk);
  if (chunks_ > 0) start_download(0);
}

// Chunk c is sent while c+1 is downloaded and c−1 uploaded. A receive lane is reposted one chunk
// after its upload started, so the upload overlaps the wait for the next chunk.
void StagedChannel::finish(StreamRef) {
  for (std::size_t chunk = 0; chunk < chunks_; ++chunk) {
    send_downloaded(chunk);
    if (chunk + 1 < chunks_) start_download(chunk + 1);
    wait_received(chunk);
    const int lane = lane_of(chunk);
    copier_->start_upload(lane, receiving_ + chunk_offset(chunk), recv_stage(lane), chunk_size(chunk));
    if (chunk >= 1 && chunk - 1 + lanes_ < chunks_) {
      copier_->wait_upload(lane_of(chunk - 1));
      post_receive(chunk - 1 + lanes_);
    }
  }
  for (int lane = 0; lane < lanes_; ++lane) copier_->wait_upload(lane);
  wait_for_requests(sends_.data(), lanes_, MPI_STATUSES_IGNORE, spec_.timeout_seconds, RINGCOMM_TRANSPORT_PREFIX "MPI_Testall",
                    [&](const std::vector<bool>& pending) {
                      // The last `lanes_` chunks went out from one lane each.
                      std::size_t bytes = 0;
                      for (std::size_t chunk = chunks_ - lanes_; chunk < chunks_; ++chunk)
                        if (pending[lane_of(chunk)]) bytes += chunk_size(chunk);
                      return stall("the right neighbour to take the last chunks", spec_.send_to, bytes);
                    });
}

}  // namespace ringcomm::host_backend
