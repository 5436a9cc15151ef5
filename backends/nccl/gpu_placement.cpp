#include "gpu_placement.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ringcomm/collective.hpp"
#include "ringcomm/cuda_check.hpp"
#include "ringcomm/settings.hpp"

namespace ringcomm::nccl_backend {
namespace {

struct Placement {
  int world_rank = -1;
  std::string host;
  std::string bus_id;   // PCI bus id: unique per GPU even where ordinals differ between ranks
  int visible_gpus = 0;
};

Placement local_placement(int device) {
  Placement p;
  MPI_Comm_rank(MPI_COMM_WORLD, &p.world_rank);
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);
  p.host.assign(host, static_cast<std::size_t>(length));
  char bus_id[32] = {};
  RINGCOMM_CUDA(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device));
  p.bus_id = bus_id;
  RINGCOMM_CUDA(cudaGetDeviceCount(&p.visible_gpus));
  return p;
}

std::string encode(const Placement& p) {
  return std::to_string(p.world_rank) + '\x1f' + p.host + '\x1f' + p.bus_id + '\x1f' +
         std::to_string(p.visible_gpus);
}

Placement decode(const std::string& text) {
  const auto parts = settings::split(text, '\x1f');
  Placement p;
  p.world_rank = std::stoi(parts.at(0));
  p.host = parts.at(1);
  p.bus_id = parts.at(2);
  p.visible_gpus = std::stoi(parts.at(3));
  return p;
}

// "ranks 0 and 2", "ranks 0, 2 and 4"
std::string rank_list(const std::vector<int>& ranks) {
  std::string text = "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0) text += i + 1 == ranks.size() ? " and " : ", ";
    text += std::to_string(ranks[i]);
  }
  return text;
}

}  // namespace

void require_one_rank_per_gpu(MPI_Comm comm, int device) {
  const Placement mine = collectively(comm, [&] { return local_placement(device); });
  std::vector<Placement> all;
  for (const auto& text : allgather_strings(comm, encode(mine))) all.push_back(decode(text));

  std::map<std::pair<std::string, std::string>, std::vector<int>> ranks_by_gpu;
  std::map<std::string, int> ranks_on_host;
  std::map<std::string, std::set<std::string>> gpus_seen_on_host;
  std::map<std::string, int> gpus_visible_on_host;
  for (const auto& p : all) {
    ranks_by_gpu[{p.host, p.bus_id}].push_back(p.world_rank);
    ++ranks_on_host[p.host];
    gpus_seen_on_host[p.host].insert(p.bus_id);
    gpus_visible_on_host[p.host] = std::max(gpus_visible_on_host[p.host], p.visible_gpus);
  }

  std::vector<std::string> problems;
  for (const auto& [gpu, ranks] : ranks_by_gpu)
    if (ranks.size() > 1) problems.push_back(rank_list(ranks) + " share GPU " + gpu.second + " on " + gpu.first);
  if (problems.empty()) return;
  int gpus_in_total = 0;
  for (const auto& [host, ranks] : ranks_on_host) {
    // A launcher may show each rank only its own GPU, so a host has at least as many GPUs as it shows
    // any one rank and at least as many as the ranks use between them.
    const int gpus = std::max<int>(gpus_visible_on_host[host], static_cast<int>(gpus_seen_on_host[host].size()));
    gpus_in_total += gpus;
    if (ranks > gpus)
      problems.push_back("host " + host + " runs " + std::to_string(ranks) + " ranks of this ring but has only " +
                         std::to_string(gpus) + " GPU" + (gpus == 1 ? "" : "s"));
  }

  std::ostringstream msg;
  for (std::size_t i = 0; i < problems.size(); ++i) msg << (i ? "; " : "") << problems[i];
  msg << ": NCCL needs one rank per GPU; start one rank per GPU (e.g. mpirun -np " << gpus_in_total << ")";
  throw Error(msg.str(), true);
}

}  // namespace ringcomm::nccl_backend
