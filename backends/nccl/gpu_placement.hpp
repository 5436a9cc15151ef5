#pragma once
// NCCL needs every rank of a communicator on its own GPU; two ranks on one GPU make its
// initialisation fail with a message that does not say what to change. This check says it first.
#include <mpi.h>

namespace ringcomm::nccl_backend {

// Collective over `comm`. Throws the same collective Error on every rank when ranks of `comm` share
// a GPU, naming them, the GPU and — when a host runs more of them than it has GPUs — that too.
// `device` is this rank's CUDA device ordinal.
void require_one_rank_per_gpu(MPI_Comm comm, int device);

}  // namespace ringcomm::nccl_backend
