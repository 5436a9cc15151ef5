#pragma once
// Which thread queues NCCL exchanges on which CUDA stream.
//
// Exchanges of two channels queued on one stream run in queue order. Within one thread that order is
// program order, the same on every rank. Two threads sharing a stream queue in whatever order they
// happen to run, which can differ between ranks, and then each rank's first exchange waits for the
// peer's, queued behind the other: a hang with no message. Each thread must therefore exchange on
// streams of its own (its own Kokkos execution space instance). This registry catches the mistake
// on the host, before anything is queued, where it can: the second thread to use a stream is refused.
#include <cuda_runtime_api.h>

namespace ringcomm::nccl_backend {

// Records that the calling thread exchanges on `stream` for `channel`; throws a (local) ringcomm::Error
// when another thread's channel already does.
void claim_stream(cudaStream_t stream, const void* channel);

// Forgets every claim of `channel` (when it is destroyed).
void release_streams(const void* channel);

}  // namespace ringcomm::nccl_backend
