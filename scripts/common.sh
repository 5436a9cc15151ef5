# Sourced by scripts/*.sh: the Debian 12 packages ringcomm needs, and the environment its MPI runs need.

RINGCOMM_DEBIAN_PACKAGES=(
  g++ gfortran cmake ninja-build pkg-config
  libopenmpi-dev openmpi-bin
  libtrilinos-kokkos-dev
  libucx-dev
  libgtest-dev
  python3 python3-numpy
)

# Installs whichever of the packages above are missing (as root, or through sudo).
install_missing_packages() {
  if ! command -v dpkg-query >/dev/null; then
    echo "not a Debian system: install the equivalents of ${RINGCOMM_DEBIAN_PACKAGES[*]} yourself" >&2
    return 0
  fi
  local missing=() package
  for package in "${RINGCOMM_DEBIAN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  ((${#missing[@]})) || return 0
  local sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  echo "== installing ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Open MPI refuses to run as root and to start more ranks than cores unless told; containers often
# forbid the cross-process memory attach of its shared-memory transport; busy-polling ranks on few
# cores starve each other.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_mpi_yield_when_idle=1

ringcomm_jobs() { nproc 2>/dev/null || echo 2; }
