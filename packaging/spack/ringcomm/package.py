# Spack recipe for ringcomm (written for Spack 0.20 - 0.23). There is no release tarball yet: build
# from a checkout with
#   spack repo add <checkout>/packaging/spack      (this folder's parent holds repo.yaml)
#   spack develop --path <checkout> ringcomm@0.1.0
#   spack install ringcomm@0.1.0 +ucx
# tests/check_spack_package.py checks this file against ringcomm's CMake options without Spack.

from spack.package import *

try:  # Spack 1.x moved the build systems into its builtin package repository
    from spack_repo.builtin.build_systems.cmake import CMakePackage
    from spack_repo.builtin.build_systems.cuda import CudaPackage
except ImportError:
    pass


class Ringcomm(CMakePackage, CudaPackage):
    """Accumulates an array too large for one GPU -- the two-particle Green's function G_t of
    DCA++-style quantum Monte Carlo -- over a ring of MPI ranks: each measurement's single-particle
    matrices travel around the ring and every rank adds them to its slice. The transport, one of the
    backends compiled in (`ringcomm-info` lists them), is chosen at run time with RINGCOMM_TRANSPORT."""

    version("0.1.0")

    variant("mpi", default=True, description="MPI: required, the ring's members are MPI ranks")
    variant("ucx", default=True, description="Build the ucx transport (UCX one-sided puts)")
    variant("nccl", default=False, description="Build the nccl transport (GPU memory, needs +cuda)")
    variant("openmp", default=False, description="Use a Kokkos with the OpenMP execution space")
    variant("examples", default=False, description="Build ring_compare and the benchmarks")

    conflicts("~mpi", msg="ringcomm needs MPI: every transport starts over MPI and the ring's members are MPI ranks")
    conflicts("+nccl", when="~cuda", msg="the nccl transport moves GPU memory: it needs +cuda")

    depends_on("cmake@3.20:", type="build")
    depends_on("mpi")
    depends_on("kokkos@3.4:")
    depends_on("kokkos+openmp", when="+openmp")
    depends_on("kokkos~cuda", when="~cuda")
    # ringcomm's sources are compiled as CUDA through Kokkos' compiler wrapper (KOKKOS_LAMBDA kernels).
    depends_on("kokkos+cuda+cuda_lambda+wrapper", when="+cuda")
    for _arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")
    depends_on("ucx@1.13:", when="+ucx")
    depends_on("ucx+cuda", when="+ucx+cuda")
    depends_on("nccl", when="+nccl")
    depends_on("googletest", type="test")
    depends_on("python@3:", type="test")  # tests/CMakeLists.txt requires an interpreter

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("RINGCOMM_BUILD_TESTS", self.run_tests),
            self.define_from_variant("RINGCOMM_BUILD_EXAMPLES", "examples"),
            self.define_from_variant("RINGCOMM_ENABLE_UCX", "ucx"),
            self.define_from_variant("RINGCOMM_ENABLE_NCCL", "nccl"),
        ]
        if spec.satisfies("+ucx"):
            args.append(self.define("RINGCOMM_UCX_ROOT", spec["ucx"].prefix))
        if spec.satisfies("+nccl"):
            args.append(self.define("NCCL_ROOT", spec["nccl"].prefix))
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CXX_COMPILER", spec["kokkos"].kokkos_cxx))
        return args
