#!/usr/bin/env python3
"""Checks packaging/spack/ringcomm/package.py without Spack.

Loads the recipe with a stand-in for the `spack.package` module whose directives only record what they
are given, then checks the declared variants, conflicts and dependencies, and that every CMake variable
cmake_args() passes, for every consistent combination of variants, is one that ringcomm's CMake files
define (CMAKE_* ones belong to CMake itself).

Usage: check_spack_package.py <ringcomm source dir>     exit status 0 when everything holds
"""
import itertools
import os
import re
import sys
import types

DECLARED = []  # (directive, args, kwargs) in the order package.py gives them


def record(directive):
    def directive_function(*args, **kwargs):
        DECLARED.append((directive, args, kwargs))
    return directive_function


class StandInPackage:
    """What cmake_args() uses of Spack's package classes."""

    def __init__(self, spec, run_tests=False):
        self.spec = spec
        self.run_tests = run_tests

    def define(self, name, value):
        kind = "BOOL" if isinstance(value, bool) else "STRING"
        text = ("ON" if value else "OFF") if isinstance(value, bool) else str(value)
        return f"-D{name}:{kind}={text}"

    def define_from_variant(self, name, variant):
        return self.define(name, self.spec.variants[variant])


class CMakePackage(StandInPackage):
    pass


class CudaPackage(StandInPackage):
    # Spack's CudaPackage declares these two variants itself.
    cuda_arch_values = ("70", "80", "90")
    stand_in_variants = {"cuda": False, "cuda_arch": "none"}


class StandInDependency:
    def __init__(self, name):
        self.prefix = f"/spack/opt/{name}"
        self.kokkos_cxx = f"/spack/opt/{name}/bin/nvcc_wrapper"


class StandInSpec:
    def __init__(self, variants):
        self.variants = variants

    def satisfies(self, constraint):
        for token in re.findall(r"[+~]\w+", constraint):
            if self.variants[token[1:]] != (token[0] == "+"):
                return False
        return True

    def __getitem__(self, dependency):
        return StandInDependency(dependency)


def load_package(path):
    spack = types.ModuleType("spack")
    package_module = types.ModuleType("spack.package")
    for name in ("version", "variant", "depends_on", "conflicts", "requires", "license", "maintainers", "patch"):
        setattr(package_module, name, record(name))
    package_module.CMakePackage = CMakePackage
    package_module.CudaPackage = CudaPackage
    package_module.__all__ = [n for n in dir(package_module) if not n.startswith("_")]
    spack.package = package_module
    sys.modules["spack"] = spack
    sys.modules["spack.package"] = package_module
    namespace = {"__name__": "ringcomm_package"}
    with open(path) as source:
        exec(compile(source.read(), path, "exec"), namespace)
    return namespace["Ringcomm"]


def cmake_definitions(source_dir):
    """Text of every CMake file of ringcomm itself (build folders and outside projects excluded)."""
    texts = []
    for root, dirs, files in os.walk(source_dir):
        dirs[:] = [d for d in dirs if not d.startswith(("build", ".")) and d not in ("consumer", "mini_qmc", "custom_kernel")]
        for f in files:
            if f == "CMakeLists.txt" or f.endswith(".cmake") or f == "CMakePresets.json":
                with open(os.path.join(root, f), errors="replace") as handle:
                    texts.append(handle.read())
    return "\n".join(texts)


def defined_in_cmake(name, cmake_text):
    if name.startswith("CMAKE_"):
        return True
    declared = (re.search(rf"option\(\s*{name}\b", cmake_text) or re.search(rf"set\(\s*{name}\b[^)]*CACHE", cmake_text)
                # backends built with the CUDA toolkit name their option to this macro, which defines it
                or re.search(rf"ringcomm_cuda_backend_enabled\(\s*\w+\s+{name}\b", cmake_text))
    used = re.search(rf"\$\{{{name}\}}", cmake_text)
    return bool(declared) if name.startswith("RINGCOMM_") else bool(declared or used)


def main():
    source_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    failures = []

    def check(condition, what):
        print(("ok      " if condition else "FAILED  ") + what)
        if not condition:
            failures.append(what)

    package = load_package(os.path.join(source_dir, "packaging", "spack", "ringcomm", "package.py"))
    check(issubclass(package, CMakePackage), "Ringcomm is a CMakePackage")

    variants = {args[0]: kwargs.get("default") for d, args, kwargs in DECLARED if d == "variant"}
    if issubclass(package, CudaPackage):
        variants.update(CudaPackage.stand_in_variants)
    for name, default in {"mpi": True, "ucx": True, "nccl": False, "cuda": False, "openmp": False,
                          "examples": False}.items():
        check(variants.get(name, "missing") == default, f"variant {name} defaults to {default}")

    conflicts = {(args[0], kwargs.get("when")) for d, args, kwargs in DECLARED if d == "conflicts"}
    check(("~mpi", None) in conflicts, "~mpi is a conflict (MPI is required)")
    check(("+nccl", "~cuda") in conflicts, "+nccl conflicts with ~cuda")

    dependencies = {(args[0], kwargs.get("when")) for d, args, kwargs in DECLARED if d == "depends_on"}
    with open(os.path.join(source_dir, "CMakeLists.txt")) as top:
        top_text = top.read()
    cmake_minimum = re.search(r"cmake_minimum_required\(VERSION ([0-9.]+)\)", top_text).group(1)
    for expected in [(f"cmake@{cmake_minimum}:", None), ("mpi", None), ("kokkos@3.4:", None),
                     ("kokkos+openmp", "+openmp"), ("kokkos+cuda+cuda_lambda+wrapper", "+cuda"),
                     ("ucx@1.13:", "+ucx"), ("nccl", "+nccl")]:
        check(expected in dependencies, f"depends_on{expected}")
    for arch in CudaPackage.cuda_arch_values:
        check((f"kokkos cuda_arch={arch}", f"+cuda cuda_arch={arch}") in dependencies,
              f"cuda_arch={arch} is passed on to kokkos")

    project_version = re.search(r"project\(ringcomm VERSION ([0-9.]+)", top_text).group(1)
    versions = [args[0] for d, args, kwargs in DECLARED if d == "version"]
    check(project_version in versions, f"version {project_version} (CMakeLists.txt's project version) is declared")

    cmake_text = cmake_definitions(source_dir)
    switches = ["ucx", "nccl", "cuda", "openmp", "examples"]
    combinations, unknown, wrong_backends = 0, set(), []
    for values in itertools.product([False, True], repeat=len(switches)):
        spec = StandInSpec(dict(zip(switches, values), mpi=True))
        if spec.satisfies("+nccl~cuda"):
            continue
        combinations += 1
        args = package(spec, run_tests=spec.variants["examples"]).cmake_args()
        unknown |= {a for a in args if not defined_in_cmake(re.match(r"-D([A-Za-z0-9_]+)", a).group(1), cmake_text)}
        if (("-DRINGCOMM_ENABLE_UCX:BOOL=ON" in args) != spec.variants["ucx"]
                or ("-DRINGCOMM_ENABLE_NCCL:BOOL=ON" in args) != spec.variants["nccl"]):
            wrong_backends.append(spec.variants)
    check(not unknown, f"every CMake variable cmake_args passes ({combinations} variant combinations) is defined by "
          "ringcomm's CMake files"
          + (f"; not: {sorted(unknown)}" if unknown else ""))
    check(not wrong_backends, "cmake_args enables the ucx and nccl backends exactly when their variants are on"
          + (f"; not for {wrong_backends}" if wrong_backends else ""))

    print(f"{len(failures)} failed" if failures else "package.py agrees with ringcomm's CMake files")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
